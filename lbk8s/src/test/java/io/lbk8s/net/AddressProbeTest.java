package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.RootRequired;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the probe refuses or answers without sending anything; the probing itself is in {@link AddressProbeNetworkTest}. */
class AddressProbeTest {

    static final IpAddress V4 = IpAddress.parse("198.18.99.200").orElseThrow();
    static final IpAddress V6 = IpAddress.parse("fd99::200").orElseThrow();

    @Test
    void nothingToProbeIsNothingInUseAtOnce() throws Exception {
        RootRequired.check();
        try (AddressProbe probe = AddressProbe.open(Links.byName("lo").orElseThrow(), false)) {
            long start = System.nanoTime();
            assertThat(probe.inUse(List.of(), Set.of(), Duration.ofSeconds(5))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        }
    }

    /** The speaker opens its probe without IPv6 whenever it takes only IPv4 addresses. */
    @Test
    void aProbeWithoutIpv6AsksForIpv4Addresses() throws Exception {
        RootRequired.check();
        try (AddressProbe probe = AddressProbe.open(Links.byName("lo").orElseThrow(), false)) {
            assertThat(probe.inUse(List.of(V4), Set.of(), Duration.ofMillis(30)))
                    .isEmpty();
        }
    }

    @Test
    void anIpv6AddressNeedsAProbeOpenedForIpv6AndAWaitCannotBeNegative() throws Exception {
        RootRequired.check();
        try (AddressProbe probe = AddressProbe.open(Links.byName("lo").orElseThrow(), false)) {
            assertThatThrownBy(() -> probe.inUse(List.of(V4, V6), Set.of(), Duration.ofMillis(100)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("IPv6 is not enabled on the address probe for lo");
            assertThatThrownBy(() -> probe.inUse(List.of(V4), Set.of(), Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}

package io.lbk8s.net.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.MacAddress;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LinksTest {

    @Test
    void listsTheLoopbackOfThisNamespace() {
        LinkInfo lo = Links.byName("lo").orElseThrow();
        assertThat(lo.loopback()).isTrue();
        assertThat(lo.up()).isTrue();
        assertThat(lo.running()).isTrue();
        assertThat(lo.operational()).isTrue();
        assertThat(lo.mac()).isEqualTo(MacAddress.ZERO);
        assertThat(lo.master()).isEmpty();
        assertThat(lo.addresses())
                .contains(new LinkAddress(IpAddress.parse("127.0.0.1").orElseThrow(), 8));
        assertThat(Links.byIndex(lo.index())).contains(lo);
        assertThat(Links.list()).isSortedAccordingTo(java.util.Comparator.comparingInt(LinkInfo::index));
    }

    @Test
    void theStateOfOneInterfaceAndOfOneThatDoesNotExist() {
        assertThat(Links.state("lo")).contains(new Links.LinkState(true, true));
        assertThat(Links.state("lo").orElseThrow().operational()).isTrue();
        assertThat(Links.state("lbk8s-none0")).isEmpty();
        assertThat(Links.state("a-name-of-15-ch"))
                .as("the longest name Linux allows")
                .isEmpty();
        assertThatThrownBy(() -> Links.state("a-name-of-16-chr")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void operationalMeansUpAndRunning() {
        assertThat(new Links.LinkState(true, true).operational()).isTrue();
        assertThat(new Links.LinkState(true, false).operational())
                .as("carrier lost")
                .isFalse();
        assertThat(new Links.LinkState(false, false).operational()).isFalse();
    }

    static Stream<Arguments> containment() {
        return Stream.of(
                argumentSet("inside a /24", "198.18.99.1/24", "198.18.99.200", true),
                argumentSet("outside a /24", "198.18.99.1/24", "198.18.98.200", false),
                argumentSet("a /32 holds itself only", "10.0.0.1/32", "10.0.0.1", true),
                argumentSet("a /32 and its neighbour", "10.0.0.1/32", "10.0.0.2", false),
                argumentSet("a /0 holds everything of its family", "10.0.0.1/0", "203.0.113.9", true),
                argumentSet("families never mix", "10.0.0.1/0", "::ffff:10.0.0.1", false),
                argumentSet("inside a /64", "fd99::1/64", "fd99::200", true),
                argumentSet("outside a /64", "fd99::1/64", "fd98::200", false),
                argumentSet("a /48 looks at the high half only", "fd99:0:1::1/48", "fd99:0:1:ffff::1", true),
                argumentSet("a /120 looks into the low half", "fd99::100/120", "fd99::1ff", true),
                argumentSet("outside a /120", "fd99::100/120", "fd99::200", false),
                argumentSet("a /128", "fd99::1/128", "fd99::1", true),
                argumentSet("a /65", "fd99::1/65", "fd99::8000:0:0:1", false));
    }

    @ParameterizedTest
    @MethodSource("containment")
    void linkAddressContains(String cidr, String ip, boolean expected) {
        String[] parts = cidr.split("/");
        LinkAddress address = new LinkAddress(IpAddress.parse(parts[0]).orElseThrow(), Integer.parseInt(parts[1]));
        assertThat(address.contains(IpAddress.parse(ip).orElseThrow())).isEqualTo(expected);
    }
}

package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.ip;
import static io.lbk8s.ipam.Fixtures.ips;
import static io.lbk8s.ipam.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AddressPool;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NextFreeTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.argumentSet(
                        "an empty pool: its first addresses",
                        pool("p", "10.0.0.1-10.0.0.9").build(),
                        Set.of(),
                        2,
                        ips("10.0.0.1", "10.0.0.2")),
                Arguments.argumentSet(
                        "taken ones are skipped",
                        pool("p", "10.0.0.1-10.0.0.9").build(),
                        Set.copyOf(ips("10.0.0.1", "10.0.0.3")),
                        2,
                        ips("10.0.0.2", "10.0.0.4")),
                Arguments.argumentSet(
                        "ranges in order",
                        pool("p", "10.0.0.1-10.0.0.2", "10.0.1.1-10.0.1.5").build(),
                        Set.copyOf(ips("10.0.0.1")),
                        2,
                        ips("10.0.0.2", "10.0.1.1")),
                Arguments.argumentSet(
                        "avoidBuggyIPs skips .0 and .255",
                        pool("p", "10.0.0.254-10.0.1.1").avoidBuggyIPs().build(),
                        Set.of(),
                        3,
                        ips("10.0.0.254", "10.0.1.1")),
                Arguments.argumentSet(
                        "a full pool: nothing",
                        pool("p", "10.0.0.1-10.0.0.2").build(),
                        Set.copyOf(ips("10.0.0.1", "10.0.0.2")),
                        2,
                        List.of()),
                Arguments.argumentSet(
                        "IPv6",
                        pool("p", "fd00::10/126").build(),
                        Set.copyOf(ips("fd00::10")),
                        2,
                        ips("fd00::11", "fd00::12")));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theAddressesThePoolWouldHandOutNext(AddressPool pool, Set<IpAddress> taken, int count, List<IpAddress> next) {
        assertThat(NextFree.of(pool, taken, count)).isEqualTo(next);
    }

    @Test
    void aHugeRangeIsLookedAtOnlyAsFarAsItsTakenAddresses() {
        Set<IpAddress> taken = new HashSet<>();
        IntStream.range(0, 5000).forEach(i -> taken.add(ip("fd00::" + Integer.toHexString(i))));
        assertThat(NextFree.of(pool("p", "fd00::/64").build(), taken, 2)).isEqualTo(ips("fd00::1388", "fd00::1389"));
    }
}

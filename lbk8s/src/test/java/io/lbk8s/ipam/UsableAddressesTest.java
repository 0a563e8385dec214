package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpFamily;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a pool can hand out, as the allocator and {@code lbk8s status} count it; checked against the allocator too. */
class UsableAddressesTest {

    static Stream<Arguments> pools() {
        return Stream.of(
                Arguments.argumentSet("/24", pool("p", "10.0.0.0/24"), 256L),
                Arguments.argumentSet(
                        "/24 avoidBuggyIPs", pool("p", "10.0.0.0/24").avoidBuggyIPs(), 254L),
                Arguments.argumentSet(
                        "range inside one /24, avoidBuggyIPs",
                        pool("p", "10.0.0.200-10.0.0.250").avoidBuggyIPs(),
                        51L),
                Arguments.argumentSet(
                        "range across a /24 boundary, avoidBuggyIPs",
                        pool("p", "10.0.0.250-10.0.1.5").avoidBuggyIPs(),
                        10L),
                Arguments.argumentSet(
                        "only .255 and .0, avoidBuggyIPs",
                        pool("p", "10.0.0.255-10.0.1.0").avoidBuggyIPs(),
                        0L),
                Arguments.argumentSet(
                        "two ranges, avoidBuggyIPs",
                        pool("p", "10.0.0.0/24", "10.0.1.0/30").avoidBuggyIPs(),
                        257L),
                Arguments.argumentSet(
                        "IPv6 is never avoided", pool("p", "fd00::/120").avoidBuggyIPs(), 256L),
                Arguments.argumentSet(
                        "dual-stack, avoidBuggyIPs",
                        pool("p", "10.0.0.0/24", "fd00::/126").avoidBuggyIPs(),
                        258L),
                Arguments.argumentSet("/64 saturates", pool("p", "fd00::/64"), Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void countsWhatThePoolCanHandOut(Fixtures.Pool pool, long usable) {
        assertThat(UsableAddresses.of(pool.build())).isEqualTo(usable);
    }

    @ParameterizedTest
    @MethodSource("pools")
    void agreesWithWhatTheAllocatorHandsOut(Fixtures.Pool pool, long usable) {
        if (usable > 1024) {
            return;
        }
        var allocator = new Allocator(Fixtures.config(pool));
        long handedOut = 0;
        for (IpFamily family : IpFamily.values()) {
            while (allocator.assign(Fixtures.svc("default/s" + handedOut)
                            .families(family)
                            .pool("p")
                            .build())
                    instanceof Outcome.Assigned) {
                handedOut++;
            }
        }
        assertThat(handedOut).isEqualTo(usable);
    }
}

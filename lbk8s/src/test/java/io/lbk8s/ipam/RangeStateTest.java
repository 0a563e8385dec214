package io.lbk8s.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The paged bitset against a TreeSet model: lowest free, marks and clears across pages, avoidBuggyIPs, sizes. */
class RangeStateTest {

    static IpRange range(String text) {
        return ((IpRange.Parsed.Valid) IpRange.parse(text)).range();
    }

    static Stream<Arguments> ranges() {
        return Stream.of(
                Arguments.argumentSet("/16", "10.0.0.0/16", false, 65536L),
                Arguments.argumentSet("/16 avoidBuggyIPs", "10.0.0.0/16", true, 65536L - 512),
                Arguments.argumentSet("odd range avoidBuggyIPs", "10.0.0.250-10.0.17.3", true, 4106L - 34),
                Arguments.argumentSet("/32", "10.0.0.1/32", false, 1L),
                Arguments.argumentSet("/120 IPv6", "fd00::/120", true, 256L),
                Arguments.argumentSet("/64 IPv6 (sparse pages)", "fd00::/64", false, Long.MAX_VALUE),
                Arguments.argumentSet("/8 IPv4 (sparse pages)", "10.0.0.0/8", true, (1L << 24) - 2 * 65536));
    }

    @ParameterizedTest
    @MethodSource("ranges")
    void behavesLikeTheModel(String text, boolean avoidBuggy, long usable) {
        IpRange r = range(text);
        RangeState state = new RangeState(r, avoidBuggy);
        assertThat(UsableAddresses.in(r, avoidBuggy)).isEqualTo(usable);
        TreeSet<Long> used = new TreeSet<>();
        Random random = new Random(7);
        long window = Math.min(r.size(), 12_288);
        List<Long> held = new ArrayList<>();
        for (int i = 0; i < 8_000; i++) {
            boolean allocate = random.nextInt(10) < 6 || held.isEmpty();
            if (allocate) {
                IpAddress got = state.lowestFree();
                long expected = lowestFreeModel(used, r, avoidBuggy, window);
                if (expected < 0) {
                    if (window == r.size()) {
                        assertThat(got).isNull();
                    }
                    continue;
                }
                assertThat(got).isEqualTo(r.at(expected).orElseThrow());
                assertThat(state.mark(got)).isTrue();
                assertThat(state.mark(got)).isFalse();
                used.add(expected);
                held.add(expected);
            } else if (random.nextInt(5) == 0) {
                // a requested address somewhere far up
                long offset = Math.floorMod(random.nextLong(), Math.min(r.size(), Long.MAX_VALUE - 1));
                IpAddress ip = r.at(offset).orElseThrow();
                if (used.add(offset)) {
                    assertThat(state.mark(ip)).isTrue();
                    held.add(offset);
                }
            } else {
                long offset = held.remove(random.nextInt(held.size()));
                used.remove(offset);
                assertThat(state.clear(r.at(offset).orElseThrow())).isTrue();
            }
            assertThat(state.used()).isEqualTo(used.size());
        }
    }

    private static long lowestFreeModel(TreeSet<Long> used, IpRange r, boolean avoidBuggy, long window) {
        for (long o = 0; o < window; o++) {
            if (used.contains(o)) {
                continue;
            }
            IpAddress ip = r.at(o).orElseThrow();
            if (avoidBuggy && ip.isV4() && (ip.lastByte() == 0 || ip.lastByte() == 255)) {
                continue;
            }
            return o;
        }
        return -1;
    }

    @ParameterizedTest
    @MethodSource("ranges")
    void fillsCompletelyWhenSmall(String text, boolean avoidBuggy, long usable) {
        IpRange r = range(text);
        if (r.size() > 70_000) {
            return;
        }
        RangeState state = new RangeState(r, avoidBuggy);
        long count = 0;
        for (IpAddress ip = state.lowestFree(); ip != null; ip = state.lowestFree()) {
            state.mark(ip);
            count++;
        }
        assertThat(count).isEqualTo(usable);
    }

    @org.junit.jupiter.api.Test
    void upperHalfOfAHugeRangeIsTrackedToo() {
        IpRange r = range("fd00::/56");
        RangeState state = new RangeState(r, false);
        IpAddress top = r.last();
        assertThat(state.mark(top)).isTrue();
        assertThat(state.mark(top)).as("already used").isFalse();
        assertThat(state.used()).isEqualTo(1);
        assertThat(state.lowestFree()).isEqualTo(r.first());
        assertThat(state.clear(top)).isTrue();
        assertThat(state.used()).isZero();
    }
}

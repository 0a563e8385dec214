package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReturnedLinksTest {
    static final long MS = 1_000_000;
    static final Duration HOLD = Duration.ofMillis(250);

    /** What is seen of interface 2, at which millisecond. */
    record Seen(long atMs, boolean up) {}

    static Seen up(long atMs) {
        return new Seen(atMs, true);
    }

    static Seen down(long atMs) {
        return new Seen(atMs, false);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("first seen up: a link in use from the start", List.of(up(0)), 1, false, null),
                Arguments.of("first seen down", List.of(down(0)), 1, true, null),
                Arguments.of("up, then down: nothing answered there", List.of(up(0), down(10)), 11, true, null),
                Arguments.of("back up: held", List.of(up(0), down(10), up(20)), 21, true, 270L),
                Arguments.of("back up, the hold not over", List.of(up(0), down(10), up(20)), 269, true, 270L),
                Arguments.of("back up, the hold over", List.of(up(0), down(10), up(20)), 270, false, 270L),
                Arguments.of(
                        "seen up again during the hold: the hold does not restart",
                        List.of(up(0), down(10), up(20), up(200)),
                        270,
                        false,
                        null),
                Arguments.of(
                        "down again during the hold, then up: a new hold",
                        List.of(up(0), down(10), up(20), down(100), up(300)),
                        549,
                        true,
                        550L),
                Arguments.of(
                        "flapping up 100 ms, down 100 ms: never answered",
                        List.of(up(0), down(10), up(110), down(210), up(310), down(410), up(510)),
                        600,
                        true,
                        760L),
                Arguments.of(
                        "up after the hold, then down and up: held again",
                        List.of(up(0), down(10), up(20), up(300), down(310), up(320)),
                        400,
                        true,
                        570L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void anInterfaceThatCameBackAnswersNothingForTheHold(
            String name, List<Seen> seen, long askedAtMs, boolean held, Long lastHoldEndsAtMs) {
        ReturnedLinks links = new ReturnedLinks(HOLD);
        OptionalLong holdStarted = OptionalLong.empty();
        for (Seen s : seen) {
            holdStarted = links.seen(2, s.up(), s.atMs() * MS);
        }
        assertThat(links.held(2, askedAtMs * MS)).as("held").isEqualTo(held);
        assertThat(holdStarted)
                .as("the end of a hold that the last sighting started")
                .isEqualTo(lastHoldEndsAtMs == null ? OptionalLong.empty() : OptionalLong.of(lastHoldEndsAtMs * MS));
        assertThat(links.held(3, askedAtMs * MS)).as("another interface").isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void withoutAHoldAnInterfaceAnswersAsSoonAsItIsUp(
            String name, List<Seen> seen, long askedAtMs, boolean held, Long lastHoldEndsAtMs) {
        ReturnedLinks links = new ReturnedLinks(Duration.ZERO);
        for (Seen s : seen) {
            assertThat(links.seen(2, s.up(), s.atMs() * MS)).isEmpty();
        }
        assertThat(links.held(2, askedAtMs * MS)).isEqualTo(!seen.getLast().up());
    }

    @Test
    void aForgottenInterfaceIsNewWhenItAppears() {
        ReturnedLinks links = new ReturnedLinks(HOLD);
        links.seen(2, true, 0);
        links.seen(2, false, 10 * MS);
        links.forget(2);
        assertThat(links.seen(2, true, 20 * MS)).isEmpty();
        assertThat(links.held(2, 20 * MS)).isFalse();
    }
}

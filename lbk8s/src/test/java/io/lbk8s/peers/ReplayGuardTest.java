package io.lbk8s.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.peers.PeerCodec.Drop;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReplayGuardTest {
    static final long NOW = 1_764_000_000_000L;

    /** A message of node-1: incarnation, sequence, sent at (ms from NOW). */
    record M(long incarnation, long sequence, long sentAt) {
        PeerMessage message() {
            return new PeerMessage(
                    PeerMessage.Kind.HEARTBEAT, "node-1", incarnation, sequence, NOW + sentAt, true, false, List.of());
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the first message of a sender", List.of(), new M(7, 1, 0), null),
                Arguments.of("the next sequence number", List.of(new M(7, 1, 0)), new M(7, 2, 50), null),
                Arguments.of(
                        "a gap in sequence numbers (lost datagrams)", List.of(new M(7, 1, 0)), new M(7, 9, 400), null),
                Arguments.of("the same message again", List.of(new M(7, 1, 0)), new M(7, 1, 0), Drop.REPLAYED),
                Arguments.of(
                        "an older message of the same life",
                        List.of(new M(7, 1, 0), new M(7, 2, 50)),
                        new M(7, 1, 0),
                        Drop.REPLAYED),
                Arguments.of("a new life (restart), sent later", List.of(new M(7, 100, 0)), new M(8, 1, 10), null),
                Arguments.of(
                        "an earlier life sent again after a restart",
                        List.of(new M(7, 100, 0), new M(8, 1, 10)),
                        new M(7, 101, 5),
                        Drop.REPLAYED),
                Arguments.of(
                        "a life whose clock is behind the last one",
                        List.of(new M(7, 1, 0)),
                        new M(8, 1, -1),
                        Drop.REPLAYED),
                Arguments.of("sent 10 s ago: still within the window", List.of(), new M(7, 1, -10_000), null),
                Arguments.of(
                        "sent more than 10 s ago: a recording, or a clock far off",
                        List.of(),
                        new M(7, 1, -10_001),
                        Drop.STALE),
                Arguments.of("sent more than 10 s ahead", List.of(), new M(7, 1, 10_001), Drop.STALE),
                Arguments.of(
                        "a stale message does not move the guard",
                        List.of(new M(7, 5, 0), new M(7, 9, -20_000)),
                        new M(7, 6, 0),
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void tellsLiveMessagesFromReplays(String what, List<M> before, M message, Drop expected) {
        ReplayGuard guard = new ReplayGuard(10_000);
        before.forEach(m -> guard.check(m.message(), NOW));
        assertThat(guard.check(message.message(), NOW)).isEqualTo(Optional.ofNullable(expected));
    }
}

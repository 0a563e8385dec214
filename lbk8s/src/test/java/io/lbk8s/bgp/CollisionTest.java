package io.lbk8s.bgp;

import static io.lbk8s.bgp.Collision.Verdict.KEEP_EXISTING;
import static io.lbk8s.bgp.Collision.Verdict.TAKE_INCOMING;
import static io.lbk8s.bgp.Collision.Verdict.WAIT;
import static io.lbk8s.bgp.SessionState.ACTIVE;
import static io.lbk8s.bgp.SessionState.CONNECT;
import static io.lbk8s.bgp.SessionState.ESTABLISHED;
import static io.lbk8s.bgp.SessionState.IDLE;
import static io.lbk8s.bgp.SessionState.OPEN_CONFIRM;
import static io.lbk8s.bgp.SessionState.OPEN_SENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CollisionTest {

    private static Optional<IpAddress> id(String text) {
        return text == null ? Optional.empty() : IpAddress.parse(text);
    }

    /** state, existing opened by us, our ID, our AS, the peer's ID (null: its OPEN not read yet), its AS, verdict. */
    static Stream<Arguments> table() {
        return Stream.of(
                // no connection of the session's own yet (or only an attempt under way): the peer's is taken
                Arguments.of(IDLE, true, "10.0.0.5", 64512, null, 64513, TAKE_INCOMING),
                Arguments.of(CONNECT, true, "10.0.0.5", 64512, null, 64513, TAKE_INCOMING),
                Arguments.of(ACTIVE, true, "10.0.0.5", 64512, null, 64513, TAKE_INCOMING),
                // an Established session is never replaced, whoever has the higher ID
                Arguments.of(ESTABLISHED, true, "10.0.0.5", 64512, "10.0.0.9", 64513, KEEP_EXISTING),
                Arguments.of(ESTABLISHED, false, "10.0.0.5", 64512, "10.0.0.9", 64513, KEEP_EXISTING),
                // ours opened, the peer's OPEN not read: who wins is not known yet
                Arguments.of(OPEN_SENT, true, "10.0.0.5", 64512, null, 64513, WAIT),
                // the higher ID's own connection stays
                Arguments.of(OPEN_CONFIRM, true, "10.0.0.5", 64512, "10.0.0.9", 64513, TAKE_INCOMING),
                Arguments.of(OPEN_CONFIRM, true, "10.0.0.9", 64512, "10.0.0.5", 64513, KEEP_EXISTING),
                Arguments.of(OPEN_SENT, true, "10.0.0.9", 64512, "10.0.0.5", 64513, KEEP_EXISTING),
                // unsigned: 200.0.0.1 is higher than 10.0.0.1, though negative as a signed 32-bit int
                Arguments.of(OPEN_CONFIRM, true, "200.0.0.1", 64512, "10.0.0.1", 64513, KEEP_EXISTING),
                Arguments.of(OPEN_CONFIRM, true, "10.0.0.1", 64512, "200.0.0.1", 64513, TAKE_INCOMING),
                Arguments.of(OPEN_CONFIRM, true, "255.255.255.255", 64512, "128.0.0.0", 64513, KEEP_EXISTING),
                // equal IDs (RFC 6286): the higher AS number's connection stays
                Arguments.of(OPEN_CONFIRM, true, "10.0.0.5", 64514, "10.0.0.5", 64513, KEEP_EXISTING),
                Arguments.of(OPEN_CONFIRM, true, "10.0.0.5", 64512, "10.0.0.5", 64513, TAKE_INCOMING),
                // both opened by the peer: it opened the second after giving up on the first
                Arguments.of(OPEN_SENT, false, "10.0.0.9", 64512, null, 64513, TAKE_INCOMING),
                Arguments.of(OPEN_CONFIRM, false, "10.0.0.9", 64512, "10.0.0.5", 64513, TAKE_INCOMING));
    }

    @ParameterizedTest
    @MethodSource("table")
    void decides(
            SessionState state,
            boolean existingIsOurs,
            String ours,
            long ourAs,
            String peer,
            long peerAs,
            Collision.Verdict expected) {
        assertThat(Collision.resolve(state, existingIsOurs, id(ours).orElseThrow(), ourAs, id(peer), peerAs))
                .isEqualTo(expected);
    }

    @Test
    void theLoserHearsCeaseConnectionCollisionResolution() {
        assertThat(Collision.RESOLUTION.describe()).contains("Connection Collision Resolution");
    }
}

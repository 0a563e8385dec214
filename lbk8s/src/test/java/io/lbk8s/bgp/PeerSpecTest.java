package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What an edit of a BGPPeer changes in a session: the words a restarted session's Event gives, and when it goes on. */
class PeerSpecTest {
    private static final PeerSpec BEFORE =
            PeerSpecs.onLoopback("router", 179, Duration.ofSeconds(90), Duration.ofSeconds(120));

    @Test
    void theChangesAreNamedAsTheBgpPeerNamesThem() {
        PeerSpec edited = PeerSpecs.withGracefulRestart(
                PeerSpecs.withPeerAsn(
                        PeerSpecs.onLoopback("router", 179, Duration.ofSeconds(30), Duration.ofSeconds(120)),
                        OptionalLong.of(64999),
                        Optional.empty()),
                false);

        assertThat(edited.changesFrom(BEFORE)).containsExactly("peerASN", "holdTime", "enableGracefulRestart");
        assertThat(edited.sameSessionAs(BEFORE)).isFalse();
    }

    @Test
    void onlyAnotherConnectTimeLeavesTheSessionAlone() {
        PeerSpec edited = PeerSpecs.onLoopback("router", 179, Duration.ofSeconds(90), Duration.ofSeconds(5));

        assertThat(edited.changesFrom(BEFORE)).containsExactly("connectTime");
        assertThat(edited.sameSessionAs(BEFORE)).isTrue();
        assertThat(BEFORE.sameSessionAs(BEFORE)).isTrue();
    }

    @Test
    void aNewPasswordRestartsTheSessionAndIsNotShown() {
        PeerSpec signed = new PeerSpec(
                BEFORE.name(),
                BEFORE.address(),
                BEFORE.port(),
                BEFORE.myAsn(),
                BEFORE.peerAsn(),
                BEFORE.dynamicAsn(),
                BEFORE.sourceAddress(),
                BEFORE.routerId(),
                BEFORE.holdTime(),
                BEFORE.keepaliveTime(),
                BEFORE.connectTime(),
                Optional.of("s3cret"),
                BEFORE.ebgpMultiHop(),
                BEFORE.gracefulRestart(),
                BEFORE.dualStack(),
                BEFORE.bfd());

        assertThat(signed.changesFrom(BEFORE)).containsExactly("password");
        assertThat(signed.sameSessionAs(BEFORE)).isFalse();
    }
}

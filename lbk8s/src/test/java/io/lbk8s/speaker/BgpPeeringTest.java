package io.lbk8s.speaker;

import static io.lbk8s.speaker.BgpFixtures.gracefullyRestarting;
import static io.lbk8s.speaker.BgpFixtures.peer;
import static io.lbk8s.speaker.BgpFixtures.secured;
import static io.lbk8s.speaker.BgpFixtures.withBgp;
import static io.lbk8s.speaker.LeaderChoiceTest.POOL;
import static io.lbk8s.speaker.LeaderChoiceTest.config;
import static io.lbk8s.speaker.LeaderChoiceTest.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.bfd.BfdSettings;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.config.BfdProfile;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.peers.Liveness;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BgpPeeringTest {

    static final BfdSettings FAST = new BfdSettings(Duration.ofMillis(100), Duration.ofMillis(100), 3, false, 254);

    static Config with(List<BgpPeer> peers, List<BfdProfile> profiles) {
        return withBgp(config(POOL), peers, List.of(), profiles);
    }

    @Test
    void aPeerBecomesTheSessionAsConfigured() {
        BgpPeering peering = BgpPeering.of(
                with(List.of(peer("tor", "10.0.0.254")), List.of()),
                node("node-1"),
                LeaderChoice.Options.DEFAULT,
                Map.of());
        assertThat(peering.problems()).isEmpty();
        PeerSpec spec = peering.peers().getFirst();
        assertThat(spec.name()).isEqualTo("tor");
        assertThat(spec.address()).hasToString("10.0.0.254");
        assertThat(spec.port()).isEqualTo(179);
        assertThat(spec.myAsn()).isEqualTo(64512);
        assertThat(spec.peerAsn()).isEqualTo(OptionalLong.of(64500));
        assertThat(spec.holdTime()).isEqualTo(Duration.ofSeconds(90));
        assertThat(spec.password()).isEmpty();
        assertThat(spec.bfd()).isEmpty();
    }

    @Test
    void thePasswordComesFromTheObjectOrItsSecret() {
        BgpPeer inline =
                secured(peer("inline", "10.0.0.250"), Optional.of("written"), Optional.empty(), Optional.empty());
        BgpPeer fromSecret =
                secured(peer("secret", "10.0.0.251"), Optional.empty(), Optional.of("tor-md5"), Optional.empty());
        BgpPeering peering = BgpPeering.of(
                with(List.of(inline, fromSecret), List.of()),
                node("node-1"),
                LeaderChoice.Options.DEFAULT,
                Map.of("tor-md5", "s3cret"));
        assertThat(peering.peers())
                .extracting(PeerSpec::name, PeerSpec::password)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("inline", Optional.of("written")),
                        org.assertj.core.groups.Tuple.tuple("secret", Optional.of("s3cret")));
    }

    @Test
    void aMissingSecretKeepsThePeerOffAndSaysWhy() {
        BgpPeer fromSecret =
                secured(peer("tor", "10.0.0.254"), Optional.empty(), Optional.of("tor-md5"), Optional.empty());
        BgpPeering peering = BgpPeering.of(
                with(List.of(fromSecret), List.of()), node("node-1"), LeaderChoice.Options.DEFAULT, Map.of());
        assertThat(peering.peers()).isEmpty();
        assertThat(peering.problems())
                .containsExactly("BGPPeer \"tor\": Secret \"tor-md5\" is missing or has no key \"password\", so node"
                        + " node-1 does not connect to 10.0.0.254");
    }

    @Test
    void theBfdProfileIsResolved() {
        BgpPeer withBfd = secured(peer("tor", "10.0.0.254"), Optional.empty(), Optional.empty(), Optional.of("fast"));
        BgpPeering peering = BgpPeering.of(
                with(List.of(withBfd), List.of(BgpFixtures.bfdProfile("fast", FAST))),
                node("node-1"),
                LeaderChoice.Options.DEFAULT,
                Map.of());
        assertThat(peering.peers().getFirst().bfd()).contains(FAST);
    }

    @Test
    void anExcludedNodePeersOnlyWhenTheLabelIsIgnored() {
        Config config = with(List.of(peer("tor", "10.0.0.254")), List.of());
        NodeState excluded = node("node-1", NodeState.EXCLUDE_LABEL);
        assertThat(BgpPeering.of(config, excluded, LeaderChoice.Options.DEFAULT, Map.of())
                        .peers())
                .isEmpty();
        assertThat(BgpPeering.of(config, excluded, new LeaderChoice.Options(true), Map.of())
                        .peers())
                .extracting(PeerSpec::name)
                .containsExactly("tor");
    }

    /**
     * The failure detector has no say in BGP: a node it holds back (starting, resuming after a pause, rejoining after
     * its peers declared it dead) holds its sessions, graceful restart or not, and sends them its whole table.
     */
    @ParameterizedTest(name = "graceful restart {0}, this node {1}: a session")
    @CsvSource({
        "true,  HELD",
        "true,  ALIVE",
        "true,  NOT_HEARD",
        "false, HELD",
        "false, DEAD",
    })
    void aNodeTheFailureDetectorHoldsBackKeepsItsSessions(boolean gracefulRestart, Liveness liveness) {
        BgpPeer peer = peer("tor", "10.0.0.254");
        Config config = with(List.of(gracefulRestart ? gracefullyRestarting(peer) : peer), List.of());

        BgpPeering peering =
                BgpPeering.of(config, node("node-1").withLiveness(liveness), LeaderChoice.Options.DEFAULT, Map.of());

        assertThat(peering.peers()).extracting(PeerSpec::name).containsExactly("tor");
        assertThat(peering.problems()).isEmpty();
    }
}

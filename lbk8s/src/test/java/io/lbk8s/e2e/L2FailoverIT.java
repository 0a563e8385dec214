package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.testkit.net.TestNode;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Handover as a client on the LAN sees it: when the announcing node or its speaker goes away, another node takes
 * the address, the client's neighbor entry switches to the new MAC (gratuitous ARP), and curl is answered again.
 */
class L2FailoverIT {
    static final Duration SOON = Duration.ofSeconds(20);
    TestNode leader;

    @RegisterExtension
    static final WebSandbox web = new WebSandbox("failover");

    /** Every test starts from the steady state: one leader, answering, and the client talking to it. */
    @BeforeEach
    void clientTalksToTheLeader() {
        leader = web.cluster().awaitServingNode("web", web.ip(), SOON);
        assertThat(web.client().neighbor(web.ip()))
                .hasValueSatisfying(n -> assertThat(n.mac()).isEqualTo(leader.mac()));
    }

    @AfterEach
    void restoreLeader() {
        web.cluster().network.linkUp(leader);
        web.cluster().setNodeReady(leader, true);
        if (!web.cluster().speaker(leader).isAlive()) {
            web.cluster().restartSpeaker(leader);
        } else if (!web.cluster().speakerPodReady(leader)) {
            web.cluster().setSpeakerPodReady(leader, true);
        }
        // the address goes back to its first node (same hash order), which says so with gratuitous ARP
        awaitServedBy(leader);
        // a handover is no address conflict, even while the old node's kernel (XDP) still answers until its fence
        // lapses: the speakers know each other's MACs
        assertThat(new AddressConflicts(web.cluster().client).list())
                .as("AddressConflicts after a handover")
                .isEmpty();
        assertThat(web.cluster().events("default", "web"))
                .as("conflict Events after a handover")
                .noneMatch(e -> e.getReason() != null && e.getReason().startsWith("AddressConflict"));
    }

    @Test
    void leaderNodeGoesNotReady() {
        web.cluster().network.linkDown(leader); // the node is gone from the LAN ...
        web.cluster().setNodeReady(leader, false); // ... and the node controller notices
        TestNode next = awaitTakeover();
        assertThat(web.cluster().speaker(leader).isAlive())
                .as("the old leader's speaker still runs, and stays silent")
                .isTrue();
        // Back on the LAN, the old node catches up with the API (its watch was cut off) and stays silent.
        web.cluster().network.linkUp(leader);
        await("only the new leader answers once the old node is back")
                .atMost(SOON)
                .until(
                        () -> web.client().arpingAll(web.ip(), Duration.ofSeconds(2)),
                        macs -> macs.equals(java.util.List.of(next.mac())));
        assertThat(web.client().neighbor(web.ip()))
                .hasValueSatisfying(n -> assertThat(n.mac()).isEqualTo(next.mac()));
    }

    @Test
    void leaderSpeakerGetsSigterm() {
        web.cluster().speaker(leader).terminate();
        awaitTakeover();
        assertThat(web.cluster().speaker(leader).waitFor(Duration.ofSeconds(10)))
                .as("the speaker exits")
                .isPresent();
        assertThat(web.cluster().speakerPodReady(leader))
                .as("the speaker marked its own Pod not ready")
                .isFalse();
        assertThat(web.cluster().speaker(leader).log()).contains("stopped answering for 1 address(es); handing over");
    }

    @Test
    void leaderSpeakerIsKilledAndItsPodMarkedNotReady() {
        web.cluster().speaker(leader).kill();
        assertThat(web.cluster().speaker(leader).waitFor(Duration.ofSeconds(10)))
                .isPresent();
        web.cluster().setSpeakerPodReady(leader, false); // what the kubelet does when the readiness probe fails
        awaitTakeover();
    }

    /** Traffic reaches another node, and the client's neighbor entry holds that node's MAC. */
    private TestNode awaitTakeover() {
        TestNode next = await("another node announces")
                .atMost(SOON)
                .until(L2FailoverIT::statusNode, n -> n.isPresent() && !n.get().equals(leader.name()))
                .map(web.cluster()::nodeNamed)
                .orElseThrow();
        awaitServedBy(next);
        assertThat(web.client().neighbor(web.ip()))
                .hasValueSatisfying(n -> assertThat(n.mac()).isEqualTo(next.mac()));
        return next;
    }

    private static void awaitServedBy(TestNode node) {
        await("curl answered by " + node.name())
                .atMost(SOON)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> web.client().curl(web.ip(), Duration.ofMillis(500)),
                        body -> body.equals(Optional.of(node.backendBody())));
    }

    private static Optional<String> statusNode() {
        return web.cluster().announcingNode("default", "web");
    }
}

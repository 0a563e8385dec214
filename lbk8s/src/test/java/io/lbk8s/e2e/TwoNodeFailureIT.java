package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes, one dies: no majority is left, and the survivor must still take the address (a quorum rule would leave
 * it unserved). When the dead node comes back it takes its address back, announcing it afresh (gratuitous ARP, its
 * ServiceL2Status) although nothing changed in its own frozen view; here without a rejoin hold, so it is readmitted
 * at once and never two MACs answer even then.
 */
class TwoNodeFailureIT {

    @RegisterExtension
    static final WebSandbox web = new WebSandbox("two-nodes", 2, List.of("--rejoin-hold", "0"));

    @Test
    void theSurvivorTakesOverAndTheDeadNodeRejoinsWithoutTwoMacs() {
        web.cluster().awaitPeersAgree(Duration.ofSeconds(60));
        TestNode leader = web.cluster().awaitServingNode("web", web.ip(), Duration.ofSeconds(20));
        TestNode survivor = web.cluster().network.nodes().stream()
                .filter(n -> !n.equals(leader))
                .findFirst()
                .orElseThrow();
        try (LanWitness witness = LanWitness.watch(web.cluster().network, web.ip(), 60, web.cluster().logs)) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> witness.macsSince(0).contains(leader.mac()));
            long failedAt = Sandbox.nowMicros();
            web.cluster().network.freeze(leader);
            web.cluster().network.linkDown(leader);
            await("the survivor serves")
                    .atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(20))
                    .until(
                            () -> web.client().curl(web.ip(), Duration.ofMillis(300)),
                            body -> body.equals(Optional.of(survivor.backendBody())));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> witness.macsSince(failedAt).contains(survivor.mac()));
            assertThat(web.cluster().metrics(survivor).orElseThrow())
                    .contains("lbk8s_peers_ready 1.0")
                    .contains("lbk8s_peers_peer_state{peer=\"" + leader.name() + "\",state=\"dead\"} 1.0");

            long backAt = Sandbox.nowMicros();
            web.cluster().network.linkUp(leader);
            web.cluster().network.thaw(leader);
            await("the address back on its first node")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(
                            () -> web.client().curl(web.ip(), Duration.ofMillis(300)),
                            body -> body.equals(Optional.of(leader.backendBody())));
            await("its ServiceL2Status names it again")
                    .atMost(Duration.ofSeconds(20))
                    .until(
                            () -> web.cluster().announcingNode("default", "web"),
                            node -> node.equals(Optional.of(leader.name())));
            await("the witness sees it answer again")
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> witness.macsSince(backAt).contains(leader.mac()));
            witness.assertNeverTwoMacs();
            // the survivor answers until it hears the returning node, which can be sooner than the witness's next
            // question (every 50 ms): after backAt the witness sees the survivor then the first node, or the first node
            // only
            assertThat(witness.macsSince(backAt)).isIn(List.of(survivor.mac(), leader.mac()), List.of(leader.mac()));
        }
    }
}

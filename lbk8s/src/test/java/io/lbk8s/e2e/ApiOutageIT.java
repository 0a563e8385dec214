package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every speaker is cut off from the API server for a while (each node's firewall drops the API server's traffic, as a
 * partition between the nodes and the control plane would), while the LAN and the speakers are whole. The client
 * keeps reaching the Service through the same node all along; each speaker says it is not watching (/readyz,
 * {@code lbk8s_api_watches_down}, its log) and, once the path is back, watches again and acts on what changed
 * meanwhile, without a restart.
 */
class ApiOutageIT {
    static final Duration SOON = Duration.ofSeconds(20);
    static final Duration OUTAGE = Duration.ofSeconds(15);
    static final Duration CURL_INTERVAL = Duration.ofMillis(250);
    static final Pattern WATCHES_DOWN = Pattern.compile("^lbk8s_api_watches_down (\\S+)$", Pattern.MULTILINE);

    @RegisterExtension
    static final WebSandbox web = new WebSandbox("api-outage");

    @AfterEach
    void mend() {
        web.cluster().network.nodes().forEach(web.cluster().network::openFirewall);
    }

    @Test
    void speakersKeepAnsweringThroughAnApiOutageAndCatchUpWithoutARestart() throws InterruptedException {
        Sandbox cluster = web.cluster();
        List<TestNode> nodes = cluster.network.nodes();
        cluster.awaitPeersAgree(Duration.ofSeconds(60));
        TestNode leader = cluster.awaitServingNode("web", web.ip(), SOON);
        await("every speaker watching").atMost(SOON).until(() -> nodes.stream().allMatch(this::watchingAgain));
        URI api = URI.create(cluster.client.getConfiguration().getMasterUrl());

        try (LanWitness witness = LanWitness.watch(cluster.network, web.ip(), 90, cluster.logs)) {
            await("the witness sees the leader answer")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> witness.macsSince(0).contains(leader.mac()));
            long cutAt = Sandbox.nowMicros();
            long cutNanos = System.nanoTime();
            nodes.forEach(n -> cluster.network.blockTcp(n, cluster.network.hostAddress(), api.getPort()));
            // the controller and this test still reach the API server: a Service created now gets its address
            cluster.client.services().resource(loadBalancer("late")).create();
            InetAddress late = Sandbox.address(
                    cluster.awaitIngressIps("default", "late", 1).getFirst());

            List<String> failedCurls = new ArrayList<>();
            int curls = 0;
            Set<TestNode> sawNotWatching = new LinkedHashSet<>();
            while (System.nanoTime() - cutNanos < OUTAGE.toNanos()) {
                Optional<String> body = cluster.network.client().curl(web.ip(), Duration.ofSeconds(1));
                curls++;
                if (!body.equals(Optional.of(leader.backendBody()))) {
                    failedCurls.add(String.format(
                            "%.1f s: %s", (System.nanoTime() - cutNanos) / 1e9, body.orElse("no answer")));
                }
                nodes.stream()
                        .filter(n -> !sawNotWatching.contains(n) && notWatching(n))
                        .forEach(sawNotWatching::add);
                Thread.sleep(CURL_INTERVAL);
            }
            System.out.printf(
                    "during the cut: %d curls, %d failed %s; not watching: %s%n",
                    curls,
                    failedCurls.size(),
                    failedCurls,
                    sawNotWatching.stream().map(TestNode::name).toList());
            assertThat(failedCurls)
                    .as("curls to %s answered by %s during the cut (of %d)", web.ip(), leader.name(), curls)
                    .isEmpty();
            assertThat(cluster.network.client().arpingAll(web.ip(), Duration.ofSeconds(2)))
                    .as("ARP answers during the cut")
                    .containsExactly(leader.mac());
            assertThat(witness.macsSince(cutAt))
                    .as("only the leader answered ARP since the cut")
                    .containsExactly(leader.mac());
            assertThat(sawNotWatching)
                    .as("speakers whose /readyz and metrics said they were not watching")
                    .containsExactlyInAnyOrderElementsOf(nodes);
            assertThat(cluster.network.client().curl(late, Duration.ofSeconds(1)))
                    .as("%s created during the cut", late)
                    .isEmpty();
            assertThat(cluster.announcingNode("default", "late")).isEmpty();
            for (TestNode node : nodes) {
                assertThat(cluster.speaker(node).log())
                        .as("the log of the speaker on %s", node.name())
                        .containsPattern(
                                "the API server has not answered for \\d+ s \\(GET /version unanswered after 3000 ms\\); "
                                        + "every watch counts as down");
            }

            long restoredNanos = System.nanoTime();
            nodes.forEach(cluster.network::openFirewall);
            await("every speaker watching again")
                    .atMost(SOON)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> nodes.stream().allMatch(this::watchingAgain));
            double watchingAfter = (System.nanoTime() - restoredNanos) / 1e9;
            TestNode lateNode = cluster.awaitServingNode("late", late, SOON);
            System.out.printf(
                    "after the cut: watching again after %.1f s, %s served by %s after %.1f s%n",
                    watchingAfter, late, lateNode.name(), (System.nanoTime() - restoredNanos) / 1e9);
            assertThat(cluster.network.client().curl(web.ip(), Duration.ofSeconds(1)))
                    .contains(leader.backendBody());
            witness.assertNeverTwoMacs();
            assertThat(witness.macsSince(cutAt))
                    .as("only the leader answered for %s", web.ip())
                    .containsExactly(leader.mac());
        }
        assertThat(nodes)
                .allSatisfy(n -> assertThat(cluster.speaker(n).isAlive())
                        .as("the speaker on %s", n.name())
                        .isTrue());
    }

    static Service loadBalancer(String name) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withSelector(Map.of("app", name))
                .addNewPort()
                .withPort(80)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }

    /** Still ready (a broken watch is said, not made unready), saying it is not watching, with the gauge above 0. */
    private boolean notWatching(TestNode node) {
        Optional<String> readyz = web.cluster().readyz(node);
        return readyz.map(r -> r.startsWith("200 ") && r.contains("not watching"))
                        .orElse(false)
                && watchesDown(node).orElse(0) > 0;
    }

    private boolean watchingAgain(TestNode node) {
        return web.cluster()
                        .readyz(node)
                        .map(r -> r.startsWith("200 ") && !r.contains("not watching"))
                        .orElse(false)
                && watchesDown(node).equals(OptionalDouble.of(0));
    }

    private OptionalDouble watchesDown(TestNode node) {
        Optional<Matcher> m =
                web.cluster().metrics(node).map(WATCHES_DOWN::matcher).filter(Matcher::find);
        return m.map(found -> OptionalDouble.of(Double.parseDouble(found.group(1))))
                .orElse(OptionalDouble.empty());
    }
}

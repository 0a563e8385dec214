package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Service;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.PeerViewAnnotation;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How often the speaker plans, as /metrics shows it (lbk8s_speaker_plans_total): a burst of changes is planned for a
 * few times, not once per change, and a change its plan does not read is not planned for at all.
 */
class SpeakerPlansApiTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    private static final int SERVICES = 40;

    @Test
    void aBurstOfNewServicesIsPlannedForFarFewerTimesThanItHasChangesAndEveryOneIsAdvertised() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            RecordingSessions sessions = startWithBgp(cluster, registry);
            double plansBefore = counter(registry, "lbk8s_speaker_plans_total");

            // as the controller and the EndpointSlice controller write them: three changes for each Service
            for (int i = 1; i <= SERVICES; i++) {
                createServedService(cluster, "web-" + i, "203.0.113." + i);
            }

            await().atMost(SOON)
                    .untilAsserted(() -> assertThat(sessions.calls().getLast())
                            .startsWith("advertise tor: ")
                            .contains(everyRoute()));
            double plans = counter(registry, "lbk8s_speaker_plans_total") - plansBefore;
            // at most one for each address given (when they come slower than it plans), and the relook's
            assertThat(plans)
                    .as("plans for %d Services (%d changes)", SERVICES, 3 * SERVICES)
                    .isGreaterThanOrEqualTo(1)
                    .isLessThanOrEqualTo(SERVICES + 3);
            assertThat(counter(registry, "lbk8s_speaker_changes_ignored_total{kind=\"Service\"}"))
                    .as("each Service created before its address was not planned for")
                    .isGreaterThanOrEqualTo(SERVICES);
        }
    }

    @Test
    void addressesGivenTogetherArePlannedForTogether() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            RecordingSessions sessions = startWithBgp(cluster, registry);
            List<Service> waiting = IntStream.rangeClosed(1, SERVICES)
                    .mapToObj(i -> createWithEndpoint(cluster, "web-" + i))
                    .toList();
            double plansBefore = counter(registry, "lbk8s_speaker_plans_total");

            // a controller with 8 workers writes the addresses: they come faster than one plan takes
            try (var writers = java.util.concurrent.Executors.newFixedThreadPool(8)) {
                for (int i = 0; i < SERVICES; i++) {
                    Service service = waiting.get(i);
                    String ip = "203.0.113." + (i + 1);
                    writers.execute(() -> cluster.giveAddress(service, ip));
                }
            }

            await().atMost(SOON)
                    .untilAsserted(() -> assertThat(sessions.calls().getLast())
                            .startsWith("advertise tor: ")
                            .contains(everyRoute()));
            // fewer plans than addresses: some were planned for together (on the real API server, whose writes take
            // longer than the test API server's, 20 plans for 40 addresses were seen)
            assertThat(counter(registry, "lbk8s_speaker_plans_total") - plansBefore)
                    .as("plans for %d addresses given at once", SERVICES)
                    .isGreaterThanOrEqualTo(1)
                    .isLessThan((double) SERVICES);
        }
    }

    @Test
    void heartbeatsAndPeerViewsAreNotPlannedForAndANodeThatFailsIs() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            cluster.speaker(0, registry).start();
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "web",
                    Map.of("addresses", List.of("203.0.113.0/28")));
            cluster.configure(ConfigResources.L2_ADVERTISEMENTS, "L2Advertisement", "web", Map.of());
            cluster.loadBalancer("web", "203.0.113.10");
            cluster.awaitNotAnnounced("web", "has no ready endpoint", SOON);

            for (int beat = 0; beat < 5; beat++) {
                heartbeat(cluster, "True");
                peerView(cluster, "beat " + beat);
            }
            await().atMost(SOON)
                    .untilAsserted(
                            () -> assertThat(counter(registry, "lbk8s_speaker_changes_ignored_total{kind=\"Node\"}"))
                                    .isGreaterThanOrEqualTo(5));
            await().atMost(SOON)
                    .untilAsserted(
                            () -> assertThat(counter(registry, "lbk8s_speaker_changes_ignored_total{kind=\"Pod\"}"))
                                    .isGreaterThanOrEqualTo(5));

            // the node no longer Ready: planned for, and the Service says why no node announces it
            cluster.client
                    .discovery()
                    .v1()
                    .endpointSlices()
                    .resource(PlanFactsTest.slice("web", true))
                    .create();
            heartbeat(cluster, "False");
            cluster.awaitNotAnnounced("web", "is not Ready", SOON);
        }
    }

    /** A speaker on node-1 whose recorded sessions have the BGPPeer tor, advertising pool bgp (203.0.113.0/24). */
    private static RecordingSessions startWithBgp(OneNodeCluster cluster, PrometheusMeterRegistry registry) {
        RecordingSessions sessions = new RecordingSessions();
        cluster.speaker(0, registry, sessions).start();
        configureBgp(cluster);
        await().atMost(SOON).until(() -> sessions.calls().contains("configure [tor]"));
        return sessions;
    }

    private static void configureBgp(OneNodeCluster cluster) {
        cluster.configure(
                ConfigResources.BGP_PEERS,
                "BGPPeer",
                "tor",
                Map.of("myASN", 64512, "peerASN", 64500, "peerAddress", "10.0.0.254"));
        cluster.configure(
                ConfigResources.IP_ADDRESS_POOLS,
                "IPAddressPool",
                "bgp",
                Map.of("addresses", List.of("203.0.113.0/24")));
        cluster.configure(
                ConfigResources.BGP_ADVERTISEMENTS,
                "BGPAdvertisement",
                "bgp",
                Map.of("ipAddressPools", List.of("bgp")));
    }

    /** A Service with a selector, its EndpointSlice with a ready Pod on node-1, then its address in its status. */
    private static void createServedService(OneNodeCluster cluster, String name, String ip) {
        cluster.giveAddress(createWithEndpoint(cluster, name), ip);
    }

    private static List<String> everyRoute() {
        return IntStream.rangeClosed(1, SERVICES)
                .mapToObj(i -> "203.0.113." + i + "/32")
                .toList();
    }

    /** A Service with a selector and its EndpointSlice with a ready Pod on node-1, as yet without an address. */
    private static Service createWithEndpoint(OneNodeCluster cluster, String name) {
        Service created = cluster.createLoadBalancer(name, Map.of("app", name));
        cluster.client
                .discovery()
                .v1()
                .endpointSlices()
                .resource(PlanFactsTest.slice(name, true))
                .create();
        return created;
    }

    /** The kubelet's status update: Ready as {@code ready}, with a new heartbeat time. */
    private static void heartbeat(OneNodeCluster cluster, String ready) {
        Node node = cluster.client.nodes().withName(OneNodeCluster.NODE).get();
        NodeCondition condition = node.getStatus().getConditions().getFirst();
        condition.setStatus(ready);
        // 10 s after the last, as a kubelet beats: the API server keeps whole seconds, and an update that changes
        // nothing is no change
        Instant last = condition.getLastHeartbeatTime() == null
                ? Instant.now()
                : Instant.parse(condition.getLastHeartbeatTime());
        condition.setLastHeartbeatTime(last.plusSeconds(10).toString());
        cluster.client.nodes().resource(node).updateStatus();
    }

    /** What a peer's failure detector writes on its speaker Pod: no input of the plan. */
    private static void peerView(OneNodeCluster cluster, String view) {
        cluster.client
                .pods()
                .inNamespace(OneNodeCluster.NS)
                .withName(OneNodeCluster.SPEAKER_POD)
                .edit(p -> {
                    Map<String, String> annotations = new HashMap<>(
                            Objects.requireNonNullElse(p.getMetadata().getAnnotations(), Map.of()));
                    annotations.put(PeerViewAnnotation.KEY, view);
                    p.getMetadata().setAnnotations(annotations);
                    return p;
                });
    }

    private static double counter(PrometheusMeterRegistry registry, String series) {
        String name = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
        String labels = series.contains("{") ? series.substring(series.indexOf('{') + 1, series.length() - 1) : "";
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{([^}]*)\\})? (\\S+)")
                .matcher(registry.scrape());
        while (m.find()) {
            if (labels.isEmpty() || (m.group(1) != null && m.group(1).contains(labels))) {
                return Double.parseDouble(m.group(2));
            }
        }
        return 0;
    }
}

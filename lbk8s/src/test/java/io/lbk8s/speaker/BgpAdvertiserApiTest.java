package io.lbk8s.speaker;

import static io.lbk8s.speaker.BgpFixtures.peer;
import static io.lbk8s.speaker.BgpFixtures.withBgp;
import static io.lbk8s.speaker.LeaderChoiceTest.POOL;
import static io.lbk8s.speaker.LeaderChoiceTest.cluster;
import static io.lbk8s.speaker.LeaderChoiceTest.config;
import static io.lbk8s.speaker.LeaderChoiceTest.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.config.Config;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.ServiceBgpStatuses;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The BGP half of the speaker's shell against the test API server, with recorded sessions: what it asks of the
 * sessions, and what users see of them (kubectl get bgpsessionstates / servicebgpstatuses, Events on the Node, the
 * metrics).
 */
class BgpAdvertiserApiTest {
    static final String NS = OneNodeCluster.NS;
    static final IpAddress TOR_ADDRESS = IpAddress.parse("10.0.0.254").orElseThrow();
    static final Config CONFIG =
            withBgp(config(POOL), List.of(peer("tor", "10.0.0.254")), List.of(BgpFixtures.Adv.of("all")), List.of());

    OneNodeCluster cluster;
    RecordingSessions sessions;
    PrometheusMeterRegistry registry;
    EventRecorder events;
    BgpAdvertiser advertiser;

    @BeforeEach
    void start() throws Exception {
        cluster = OneNodeCluster.start();
        sessions = new RecordingSessions();
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        events = new EventRecorder(cluster.client, "lbk8s-speaker", OneNodeCluster.NODE);
        advertiser = new BgpAdvertiser(
                OneNodeCluster.NODE,
                sessions.start(() -> {}),
                new SpeakerMetrics(registry, OneNodeCluster.NODE),
                events,
                () -> Optional.<HasMetadata>ofNullable(
                        cluster.client.nodes().withName(OneNodeCluster.NODE).get()),
                new BgpSessionStates(cluster.client, NS, OneNodeCluster.NODE),
                new ServiceBgpStatuses(cluster.client, NS, OneNodeCluster.NODE, node -> true));
    }

    @AfterEach
    void stop() throws Exception {
        advertiser.close();
        events.close();
        cluster.close();
    }

    static BgpPlan plan(List<ServiceState> services) {
        return BgpPlan.compute(
                new NodePlan.Inputs(
                        OneNodeCluster.NODE,
                        CONFIG,
                        services,
                        List.of(node(OneNodeCluster.NODE)),
                        LeaderChoice.Options.DEFAULT,
                        List.of(),
                        InterfaceChoice.DEFAULT_EXCLUDED),
                Map.of());
    }

    static SessionStatus session(SessionState state, Optional<String> lastError, int advertised) {
        return new SessionStatus(
                "tor", TOR_ADDRESS, state, Instant.now(), lastError, advertised, Optional.empty(), Set.of());
    }

    @Test
    void thePlanReachesTheSessionsOnceAndTheServiceShowsItsPeers() {
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of());
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of()); // unchanged: nothing asked again

        assertThat(sessions.calls()).containsExactly("configure [tor]", "advertise tor: 10.0.0.1/32");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(serviceBgpStatuses())
                        .singleElement()
                        .satisfies(status -> assertThat(status(status))
                                .containsEntry("node", "node-1")
                                .containsEntry("serviceName", "web")
                                .containsEntry("serviceNamespace", "default")
                                .containsEntry("peers", List.of("tor"))));

        advertiser.apply(plan(List.of()), Set.of()); // the Service is gone
        assertThat(sessions.calls()).endsWith("advertise tor: nothing");
        await().atMost(Duration.ofSeconds(10)).until(() -> serviceBgpStatuses().isEmpty());
    }

    @Test
    void aSessionsStateShowsInItsObjectEventsAndMetrics() {
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of());
        sessions.report(session(SessionState.ACTIVE, Optional.of("connection refused by 10.0.0.254:179"), 0));
        advertiser.sessionsChanged();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(sessionStates())
                        .singleElement()
                        .satisfies(state -> assertThat(status(state))
                                .containsEntry("node", "node-1")
                                .containsEntry("peer", "tor")
                                .containsEntry("bgpStatus", "Active")
                                .containsEntry("bfdStatus", "N/A")));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nodeEvents())
                        .contains(
                                "Warning BGPSessionDown: BGP session of node node-1 with BGPPeer \"tor\" (10.0.0.254) is"
                                        + " down: connection refused by 10.0.0.254:179"));
        assertThat(registry.scrape())
                .contains("lbk8s_bgp_session_up{peer=\"tor\"} 0.0")
                .contains("lbk8s_bgp_session_transitions_total{peer=\"tor\"} 1.0");

        sessions.report(session(SessionState.ESTABLISHED, Optional.empty(), 1));
        advertiser.sessionsChanged();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(sessionStates())
                        .singleElement()
                        .satisfies(state -> assertThat(status(state)).containsEntry("bgpStatus", "Established")));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nodeEvents())
                        .contains("Normal BGPSessionEstablished: BGP session of node node-1 with BGPPeer \"tor\""
                                + " (10.0.0.254) established"));
        assertThat(registry.scrape())
                .contains("lbk8s_bgp_session_up{peer=\"tor\"} 1.0")
                .contains("lbk8s_bgp_advertised_routes{peer=\"tor\"} 1.0")
                .contains("lbk8s_bgp_session_transitions_total{peer=\"tor\"} 2.0");

        sessions.report(session(SessionState.IDLE, Optional.of("hold timer expired"), 0));
        advertiser.sessionsChanged();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nodeEvents())
                        .contains(
                                "Warning BGPSessionDown: BGP session of node node-1 with BGPPeer \"tor\" (10.0.0.254) is"
                                        + " down: hold timer expired"));
    }

    @Test
    void aFamilyTakenOffAnEstablishedSessionShowsInItsObjectAndAWarning() {
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of());
        SessionStatus established = session(SessionState.ESTABLISHED, Optional.empty(), 1);
        sessions.report(new SessionStatus(
                "tor",
                TOR_ADDRESS,
                SessionState.ESTABLISHED,
                established.since(),
                Optional.empty(),
                1,
                Optional.empty(),
                Set.of(Family.IPV6_UNICAST)));
        advertiser.sessionsChanged();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(sessionStates())
                        .singleElement()
                        .satisfies(state -> assertThat(status(state))
                                .containsEntry("bgpStatus", "Established")
                                .containsEntry("disabledFamilies", List.of("IPv6 unicast"))));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nodeEvents())
                        .contains("Warning BGPFamilyDisabled: BGP session of node node-1 with BGPPeer \"tor\""
                                + " (10.0.0.254) goes on without IPv6 unicast until it restarts: the peer sent an IPv6"
                                + " unicast UPDATE that cannot be parsed (RFC 7606 AFI/SAFI disable)"));

        // restarted: the family is back, and the object says nothing of it (MetalLB's shape again)
        sessions.report(established);
        advertiser.sessionsChanged();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(sessionStates())
                        .singleElement()
                        .satisfies(state -> assertThat(status(state)).doesNotContainKey("disabledFamilies")));
    }

    @Test
    void aSessionThatStaysDownSaysEachNewReason() {
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of());
        String refused = "connection to 10.0.0.254:179 refused: nothing listens there";
        String unanswered = "no connection to 10.0.0.254:179 within 2000 ms: the peer does not answer, or expects"
                + " another TCP MD5 password (or none)";
        String down = "Warning BGPSessionDown: BGP session of node node-1 with BGPPeer \"tor\" (10.0.0.254) is down: ";

        // as a router stopped at the end of one test and started with a password by the next one leaves it
        for (String reason : List.of(refused, refused, unanswered, unanswered, refused)) {
            sessions.report(session(SessionState.ACTIVE, Optional.of(reason), 0));
            advertiser.sessionsChanged();
            sessions.report(session(SessionState.CONNECT, Optional.of(reason), 0));
            advertiser.sessionsChanged();
        }

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(nodeEvents())
                        .filteredOn(e -> e.startsWith(down))
                        .containsExactlyInAnyOrder(down + refused, down + unanswered, down + refused));
    }

    @Test
    void aGracefulStopEndsTheSessionsAndRemovesTheObjects() {
        advertiser.apply(plan(List.of(cluster("10.0.0.1"))), Set.of());
        sessions.report(session(SessionState.ESTABLISHED, Optional.empty(), 1));
        advertiser.sessionsChanged();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !sessionStates().isEmpty() && !serviceBgpStatuses().isEmpty());

        advertiser.endSessions();
        advertiser.withdrawStatuses(5_000);

        assertThat(sessions.calls()).endsWith("close");
        assertThat(sessionStates()).isEmpty();
        assertThat(serviceBgpStatuses()).isEmpty();
    }

    List<GenericKubernetesResource> sessionStates() {
        return cluster.client
                .genericKubernetesResources(BgpSessionStates.CONTEXT)
                .inNamespace(NS)
                .list()
                .getItems();
    }

    List<GenericKubernetesResource> serviceBgpStatuses() {
        return cluster.client
                .genericKubernetesResources(ServiceBgpStatuses.CONTEXT)
                .inNamespace(NS)
                .list()
                .getItems();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> status(GenericKubernetesResource resource) {
        return (Map<String, Object>) resource.getAdditionalProperties().get("status");
    }

    /** The Node's Events as `kubectl describe node` lists them: type, reason, message. */
    List<String> nodeEvents() {
        return cluster.client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> "Node".equals(e.getInvolvedObject().getKind()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.lbk8s.config.Config;
import io.lbk8s.kube.ConfigResources;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What a user sees when the Secret a BGPPeer names is missing, or the speaker may not read it. */
class PasswordSecretsTest {

    @Test
    void aMissingSecretIsAnEventOnTheNodeAndItsCreationStartsTheSession() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            RecordingSessions sessions = new RecordingSessions();
            Speaker speaker = cluster.speaker(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), sessions);
            speaker.start();
            cluster.configure(
                    ConfigResources.BGP_PEERS,
                    "BGPPeer",
                    "tor",
                    Map.of(
                            "myASN",
                            64512,
                            "peerASN",
                            64500,
                            "peerAddress",
                            "10.0.0.254",
                            "passwordSecret",
                            Map.of("name", "tor-md5")));

            await().atMost(Duration.ofSeconds(15))
                    .untilAsserted(() -> assertThat(nodeEvents(cluster))
                            .contains("Warning BGPPeerProblem: BGPPeer \"tor\": Secret \"tor-md5\" is missing or has"
                                    + " no key \"password\", so node node-1 does not connect to 10.0.0.254"));
            assertThat(sessions.configured).isEmpty();

            cluster.client
                    .secrets()
                    .inNamespace(OneNodeCluster.NS)
                    .resource(SpeakerBgpApiTest.secret("s3cret"))
                    .create();

            await().atMost(Duration.ofSeconds(15))
                    .untilAsserted(() -> assertThat(sessions.configured)
                            .singleElement()
                            .satisfies(peer -> assertThat(peer.password()).contains("s3cret")));
        }
    }

    /** An API server that refuses every request, as one does when the speaker's Role was narrowed by hand. */
    static HttpServer forbidding(AtomicInteger requests) throws IOException {
        HttpServer forbidding = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        forbidding.createContext("/", exchange -> {
            requests.incrementAndGet();
            byte[] body = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
                            + "\"code\":403,\"message\":\"secrets \\\"tor-md5\\\" is forbidden: User"
                            + " \\\"system:serviceaccount:lbk8s-system:lbk8s-speaker\\\" cannot list resource"
                            + " \\\"secrets\\\" in API group \\\"\\\" in the namespace \\\"lbk8s-system\\\"\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(403, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        forbidding.start();
        return forbidding;
    }

    static KubernetesClient clientOf(HttpServer server) {
        return new KubernetesClientBuilder()
                .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(io.fabric8.kubernetes.client.Config.empty())
                        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
    }

    static final Config PEER_WITH_SECRET = BgpFixtures.withBgp(
            Config.EMPTY,
            List.of(BgpFixtures.secured(
                    BgpFixtures.peer("tor", "10.0.0.254"), Optional.empty(), Optional.of("tor-md5"), Optional.empty())),
            List.of(),
            List.of());

    @Test
    void aSecretTheSpeakerMayNotReadIsNamedWithTheGrantItLacks() throws Exception {
        HttpServer forbidding = forbidding(new AtomicInteger());
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);
        try (KubernetesClient client = clientOf(forbidding);
                PasswordSecrets secrets = new PasswordSecrets(client, OneNodeCluster.NS, () -> {})) {
            assertThat(secrets.passwords(PEER_WITH_SECRET)).isEmpty();
            BgpPeering peering = BgpPeering.of(
                    PEER_WITH_SECRET,
                    LeaderChoiceTest.node(OneNodeCluster.NODE),
                    LeaderChoice.Options.DEFAULT,
                    secrets.passwords(PEER_WITH_SECRET),
                    secrets.unreadable());

            assertThat(peering.peers()).isEmpty();
            assertThat(peering.problems())
                    .containsExactly("BGPPeer \"tor\": the speaker cannot read Secret \"tor-md5\" (Forbidden: its Role"
                            + " in lbk8s-system must allow list and watch of Secrets, as lbk8s install and the chart"
                            + " grant), so node node-1 does not connect to 10.0.0.254");
            // one line of lbk8s's in the speaker's log, not fabric8's stack trace at ERROR beside it
            assertThat(log.list)
                    .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .extracting(ILoggingEvent::getLoggerName, ILoggingEvent::getThrowableProxy)
                    .containsExactly(tuple(PasswordSecrets.class.getName(), null));
            assertThat(log.list.getFirst().getFormattedMessage())
                    .startsWith("cannot read Secret lbk8s-system/tor-md5: Forbidden: its Role");
        } finally {
            root.detachAppender(log);
            forbidding.stop(0);
        }
    }

    static List<String> nodeEvents(OneNodeCluster cluster) {
        return cluster.client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> "Node".equals(e.getInvolvedObject().getKind()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }

    @Test
    void aRefusedSecretIsAskedForAgainOnlyAfterTheRetryDelay() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer forbidding = forbidding(requests);
        try (KubernetesClient client = clientOf(forbidding);
                PasswordSecrets patient = new PasswordSecrets(client, OneNodeCluster.NS, () -> {});
                PasswordSecrets eager = new PasswordSecrets(client, OneNodeCluster.NS, () -> {}, Duration.ZERO)) {
            patient.passwords(PEER_WITH_SECRET);
            patient.passwords(PEER_WITH_SECRET); // a plan 5 s later, say: the refusal stands
            assertThat(requests.get()).isEqualTo(1);
            assertThat(patient.unreadable()).containsOnlyKeys("tor-md5");

            eager.passwords(PEER_WITH_SECRET);
            eager.passwords(PEER_WITH_SECRET); // past the delay: asked again
            assertThat(requests.get()).isEqualTo(3);
        } finally {
            forbidding.stop(0);
        }
    }
}

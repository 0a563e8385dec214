package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.lbk8s.config.Config;
import io.lbk8s.kube.ConfigResources;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The speaker's BGP wiring against the test API server, its sessions recorded. */
class SpeakerBgpApiTest {

    @Test
    void withoutBgpConfigurationNoSessionIsAskedForAndAStopStillSaysCease() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            RecordingSessions sessions = new RecordingSessions();
            Speaker speaker = cluster.speaker(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), sessions);
            speaker.start();
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "web",
                    Map.of("addresses", List.of("203.0.113.0/28")));
            cluster.loadBalancer("web", "203.0.113.10");
            // layer 2 as before: the speaker planned and reported
            cluster.awaitNotAnnounced(
                    "web",
                    "no L2Advertisement selects pool \"web\", so no node announces 203.0.113.10",
                    Duration.ofSeconds(15));
            assertThat(sessions.calls()).isEmpty();

            speaker.shutdown();

            assertThat(sessions.calls()).containsExactly("close");
        }
    }

    @Test
    void aPasswordSecretIsReadAndItsRotationReplans() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            cluster.client
                    .secrets()
                    .inNamespace(OneNodeCluster.NS)
                    .resource(secret("s3cret"))
                    .create();
            AtomicInteger replans = new AtomicInteger();
            Config config = BgpFixtures.withBgp(
                    Config.EMPTY,
                    List.of(BgpFixtures.secured(
                            BgpFixtures.peer("tor", "10.0.0.254"),
                            Optional.empty(),
                            Optional.of("tor-md5"),
                            Optional.empty())),
                    List.of(),
                    List.of());
            try (PasswordSecrets secrets =
                    new PasswordSecrets(cluster.client, OneNodeCluster.NS, replans::incrementAndGet)) {
                assertThat(secrets.passwords(config)).isEqualTo(Map.of("tor-md5", "s3cret"));
                int before = replans.get();

                cluster.client
                        .secrets()
                        .inNamespace(OneNodeCluster.NS)
                        .resource(secret("rotated"))
                        .update();

                await().atMost(Duration.ofSeconds(10)).until(() -> replans.get() > before);
                assertThat(secrets.passwords(config)).isEqualTo(Map.of("tor-md5", "rotated"));
                assertThat(secrets.passwords(Config.EMPTY)).isEmpty(); // no peer names it: no longer watched
            }
        }
    }

    static Secret secret(String password) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName("tor-md5")
                .withNamespace(OneNodeCluster.NS)
                .endMetadata()
                .withType("kubernetes.io/basic-auth")
                // as the API server stores it (kubectl create secret generic tor-md5 --from-literal=password=...)
                .withData(Map.of(
                        "password",
                        java.util.Base64.getEncoder()
                                .encodeToString(password.getBytes(java.nio.charset.StandardCharsets.UTF_8))))
                .build();
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.testkit.TestApiServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The speaker against the test API server when its watch of Services breaks: its /readyz says so meanwhile (it stays
 * ready: the leader choice reads speakers' readiness, and an API server restart breaks every speaker's watches at
 * once), and it handles Services again once watches are served. No interface of this host is in TEST-NET-3, and no pool is
 * configured, so the speaker announces nothing: what it decided shows as its NotAnnounced Warning on each Service.
 */
class SpeakerWatchTest {

    @Test
    void aBrokenWatchOfServicesRecoversAndReadyzSaysSoMeanwhile() throws Exception {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            server.createCrds(Path.of("..", "deploy", "crds"));
            SpeakerApi.nodeWithSpeakerPod(client);
            try (KubernetesClient speakerClient = server.newClient(); Speaker speaker = SpeakerApi.speaker(speakerClient)) {
                speaker.start();
                SpeakerApi.loadBalancer(client, "before", "203.0.113.10");
                SpeakerApi.awaitNotAnnounced(client, "before", "203.0.113.10", Duration.ofSeconds(15));
                await().atMost(Duration.ofSeconds(15)).until(() -> speaker.readiness().ready());

                server.dispatcher().breakWatches("", "services");
                await().atMost(Duration.ofSeconds(15)).until(() -> speaker.readiness().reason().contains("not watching services"));
                assertThat(speaker.readiness().ready()).as("said, but still ready: readiness moves addresses").isTrue();
                SpeakerApi.loadBalancer(client, "during", "203.0.113.11");

                server.dispatcher().mendWatches("", "services");
                await().atMost(Duration.ofSeconds(40)).until(() -> !speaker.readiness().reason().contains("not watching"));
                SpeakerApi.awaitNotAnnounced(client, "during", "203.0.113.11", Duration.ofSeconds(15));
            }
        }
    }
}

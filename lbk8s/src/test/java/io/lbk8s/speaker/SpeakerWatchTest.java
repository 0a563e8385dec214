package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The speaker against the test API server (which breaks one resource's watches on demand, as the real one cannot)
 * when its watch of Services breaks: its /readyz says so meanwhile (it stays
 * ready: the leader choice reads speakers' readiness, and an API server restart breaks every speaker's watches at
 * once), and it handles Services again once watches are served. No pool is configured, so what the speaker decided
 * shows as its NotAnnounced Warning on each Service.
 */
class SpeakerWatchTest {

    @Test
    void aBrokenWatchOfServicesRecoversAndReadyzSaysSoMeanwhile() throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.startOnTheTestApiServer()) {
            Speaker speaker = cluster.speaker(0);
            speaker.start();
            cluster.loadBalancer("before", "203.0.113.10");
            cluster.awaitNotAnnounced("before", "203.0.113.10", Duration.ofSeconds(15));
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> speaker.readiness().ready());

            cluster.faults().dispatcher().breakWatches("", "services");
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> speaker.readiness().reason().contains("not watching services"));
            assertThat(speaker.readiness().ready())
                    .as("said, but still ready: readiness moves addresses")
                    .isTrue();
            cluster.loadBalancer("during", "203.0.113.11");

            cluster.faults().dispatcher().mendWatches("", "services");
            await().atMost(Duration.ofSeconds(40))
                    .until(() -> !speaker.readiness().reason().contains("not watching"));
            cluster.awaitNotAnnounced("during", "203.0.113.11", Duration.ofSeconds(15));
        }
    }
}

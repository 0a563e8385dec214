package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.kube.ConfigResources;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The speaker's plans go through the work queue both roles share, and /metrics shows it under name="speaker". */
class SpeakerQueueMetricsApiTest {

    @Test
    void theSpeakersQueueIsMeasuredUnderItsName() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            cluster.speaker(0, registry).start();
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "web",
                    Map.of("addresses", List.of("203.0.113.0/28")));
            cluster.loadBalancer("web", "203.0.113.10");
            cluster.awaitNotAnnounced(
                    "web",
                    "no L2Advertisement selects pool \"web\", so no node announces 203.0.113.10",
                    Duration.ofSeconds(15));

            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(registry.scrape())
                            .containsPattern("lbk8s_workqueue_adds_total\\{name=\"speaker\"} [1-9]")
                            .containsPattern("lbk8s_workqueue_work_duration_seconds_count\\{name=\"speaker\"} [1-9]")
                            .containsPattern("lbk8s_workqueue_queue_duration_seconds_count\\{name=\"speaker\"} [1-9]")
                            .contains("lbk8s_workqueue_retries_total{name=\"speaker\"} 0.0")
                            .containsPattern("lbk8s_workqueue_depth\\{name=\"speaker\"} [0-9]"));
        }
    }
}

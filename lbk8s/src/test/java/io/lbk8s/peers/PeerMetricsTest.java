package io.lbk8s.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What /metrics shows of the detector's verdicts on a peer. */
class PeerMetricsTest {

    @Test
    void aPeerDeclaredSilentCountsAsAFailureAndItsSilenceIsTimed() {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PeerMetrics metrics = new PeerMetrics(registry);
        metrics.event(
                new Membership.Event.Silent("node-2", Duration.ofMillis(260).toNanos()));
        metrics.event(new Membership.Event.Left("node-3"));

        assertThat(registry.scrape())
                .contains("lbk8s_peers_failures_total{how=\"silent\",peer=\"node-2\"} 1.0")
                .contains("lbk8s_peers_failures_total{how=\"left\",peer=\"node-3\"} 1.0")
                // only a silent peer took detection time; one that left said so
                .contains("lbk8s_peers_failure_silence_seconds_count 1")
                .contains("lbk8s_peers_failure_silence_seconds_sum 0.26")
                .contains("lbk8s_peers_failure_silence_seconds_max 0.26");
    }
}

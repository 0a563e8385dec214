package io.lbk8s.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueueMetersTest {
    @Test
    void exportsDepthAddsRetriesAndDurationsByQueueName() {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var ticker = new ManualTicker();
        var queue = new RateLimitedQueue<String>(RetryPolicy.DEFAULT, ticker);
        QueueMeters.measure(registry, "controller", queue);
        var loop = new ReconcileLoop<>(
                queue,
                key -> {
                    ticker.advance(Duration.ofMillis(20)); // the reconcile takes 20 ms
                    return key.equals("fails") ? ReconcileResult.RETRY : ReconcileResult.DONE;
                },
                Duration.ofSeconds(1),
                idle -> {});

        queue.add("fails");
        queue.add("web");
        queue.add("web"); // folded: not an add
        queue.add("waits");
        ticker.advance(Duration.ofMillis(3)); // each waited 3 ms before the first was taken
        loop.processReady(); // "fails" fails: retried in 5 ms

        String scraped = registry.scrape();
        assertThat(scraped)
                .contains("lbk8s_workqueue_depth{name=\"controller\"} 2.0")
                .contains("lbk8s_workqueue_adds_total{name=\"controller\"} 3.0")
                .contains("lbk8s_workqueue_retries_total{name=\"controller\"} 1.0")
                .contains("lbk8s_workqueue_queue_duration_seconds_count{name=\"controller\"} 1")
                .contains("lbk8s_workqueue_queue_duration_seconds_sum{name=\"controller\"} 0.003")
                .contains("lbk8s_workqueue_work_duration_seconds_count{name=\"controller\"} 1")
                .contains("lbk8s_workqueue_work_duration_seconds_sum{name=\"controller\"} 0.02")
                .contains("lbk8s_workqueue_work_duration_seconds_bucket{name=\"controller\",le=\"0.1\"} 1");

        loop.processReady(); // web: waited 23 ms
        loop.processReady(); // waits: waited 43 ms; "fails" is due meanwhile and added again
        assertThat(registry.scrape())
                .contains("lbk8s_workqueue_depth{name=\"controller\"} 1.0")
                .contains("lbk8s_workqueue_adds_total{name=\"controller\"} 4.0")
                .contains("lbk8s_workqueue_queue_duration_seconds_sum{name=\"controller\"} 0.069");
    }
}

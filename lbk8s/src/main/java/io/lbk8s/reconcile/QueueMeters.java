package io.lbk8s.reconcile;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A queue's Prometheus metrics, named as client-go's workqueue ones with lbk8s_ before them and the queue's name as
 * label: lbk8s_workqueue_depth{name}, lbk8s_workqueue_adds_total, lbk8s_workqueue_retries_total,
 * lbk8s_workqueue_queue_duration_seconds (waiting) and lbk8s_workqueue_work_duration_seconds (reconciling).
 */
public final class QueueMeters implements QueueMetrics {
    /** client-go's buckets are 10 ns to 1000 s; a reconcile here takes microseconds to seconds. */
    private static final Duration[] BUCKETS = {
        Duration.ofNanos(1_000),
        Duration.ofNanos(10_000),
        Duration.ofNanos(100_000),
        Duration.ofMillis(1),
        Duration.ofMillis(10),
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        Duration.ofSeconds(10),
        Duration.ofSeconds(100)
    };

    private final Counter adds;
    private final Counter retries;
    private final Timer waiting;
    private final Timer working;

    private QueueMeters(MeterRegistry registry, String name, RateLimitedQueue<?> queue) {
        Gauge.builder("lbk8s.workqueue.depth", queue, RateLimitedQueue::depth)
                .tag("name", name)
                .strongReference(true)
                .description("Keys waiting to be reconciled")
                .register(registry);
        adds = Counter.builder("lbk8s.workqueue.adds")
                .tag("name", name)
                .description("Keys added that were not waiting already")
                .register(registry);
        retries = Counter.builder("lbk8s.workqueue.retries")
                .tag("name", name)
                .description("Failed reconciles put back to be tried again after a backoff")
                .register(registry);
        waiting = Timer.builder("lbk8s.workqueue.queue.duration")
                .tag("name", name)
                .serviceLevelObjectives(BUCKETS)
                .description("How long a key waited before it was reconciled")
                .register(registry);
        working = Timer.builder("lbk8s.workqueue.work.duration")
                .tag("name", name)
                .serviceLevelObjectives(BUCKETS)
                .description("How long a reconcile took")
                .register(registry);
    }

    /** Exports what {@code queue} does under {@code name}. */
    public static void measure(MeterRegistry registry, String name, RateLimitedQueue<?> queue) {
        queue.measure(new QueueMeters(registry, name, queue));
    }

    @Override
    public void added() {
        adds.increment();
    }

    @Override
    public void retried() {
        retries.increment();
    }

    @Override
    public void waited(long nanos) {
        waiting.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void worked(long nanos) {
        working.record(nanos, TimeUnit.NANOSECONDS);
    }
}

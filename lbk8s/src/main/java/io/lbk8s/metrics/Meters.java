package io.lbk8s.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registers a role's counters, untagged gauges and gauge families, each with its help text. Meters that read an
 * object (a queue's depth, a watch's state) or time something are built where that object is (QueueMeters, Watches,
 * ElectionMetrics).
 */
public final class Meters {
    private final MeterRegistry registry;

    public Meters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The counter of this name and these tags (key, value, key, value...): registered once, then the same one. */
    public Counter counter(String name, String help, String... tagKeysAndValues) {
        return Counter.builder(name).description(help).tags(tagKeysAndValues).register(registry);
    }

    /** A gauge that reads the number returned; keep it in a field, since gauges hold their numbers weakly. */
    public AtomicInteger gauge(String name, String help) {
        AtomicInteger value = new AtomicInteger();
        Gauge.builder(name, value, AtomicInteger::get).description(help).register(registry);
        return value;
    }

    /** A family of gauges, one a row of tags, whose rows are replaced as a whole. */
    public MultiGauge gauges(String name, String help) {
        return MultiGauge.builder(name).description(help).register(registry);
    }
}

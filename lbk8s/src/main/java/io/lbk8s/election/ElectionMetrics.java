package io.lbk8s.election;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/** lbk8s_controller_leader and lbk8s_controller_leader_changes_total, as this replica sees them. */
public final class ElectionMetrics {
    private final AtomicInteger leader = new AtomicInteger();
    private final Counter changes;

    public ElectionMetrics(MeterRegistry registry) {
        Gauge.builder("lbk8s.controller.leader", leader, AtomicInteger::get)
                .description("1 while this controller replica leads (assigns addresses), 0 while it stands by")
                .strongReference(true) // a replica without an election sets it once and keeps no reference
                .register(registry);
        changes = Counter.builder("lbk8s.controller.leader.changes")
                .description("Times this replica saw the controller Lease pass to a new holder")
                .register(registry);
    }

    public void leading(boolean leading) {
        leader.set(leading ? 1 : 0);
    }

    void newHolder() {
        changes.increment();
    }
}

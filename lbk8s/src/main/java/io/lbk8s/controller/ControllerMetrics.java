package io.lbk8s.controller;

import io.lbk8s.ipam.FailureReason;
import io.lbk8s.ipam.PoolUsage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The controller's Prometheus metrics (names as exported: lbk8s_pool_addresses{pool} and so on). */
final class ControllerMetrics {
    private final MeterRegistry registry;
    private final MultiGauge poolTotal;
    private final MultiGauge poolInUse;
    private final MultiGauge poolExcluded;
    private final AtomicInteger configValid = new AtomicInteger();
    private final AtomicInteger servicesAssigned = new AtomicInteger();
    private final AtomicInteger addressConflicts = new AtomicInteger();

    ControllerMetrics(MeterRegistry registry) {
        this.registry = registry;
        poolTotal = MultiGauge.builder("lbk8s.pool.addresses")
                .description("Addresses a pool can hand out")
                .register(registry);
        poolInUse = MultiGauge.builder("lbk8s.pool.addresses.in.use")
                .description("Addresses of a pool held by Services")
                .register(registry);
        poolExcluded = MultiGauge.builder("lbk8s.pool.excluded.addresses")
                .description("Addresses of a pool not given to any Service: a node's, its gateway's, the API server's, "
                        + "its subnet's network or broadcast address (the pool's AddressesExcluded Event says which)")
                .register(registry);
        Gauge.builder("lbk8s.config.valid", configValid, AtomicInteger::get)
                .description("1 when the last configuration read was valid, 0 when some object of it was refused")
                .register(registry);
        Gauge.builder("lbk8s.services.assigned", servicesAssigned, AtomicInteger::get)
                .description("LoadBalancer Services holding addresses")
                .register(registry);
        Gauge.builder("lbk8s.address.conflicts", addressConflicts, AtomicInteger::get)
                .description(
                        "Pool addresses another host answers for, as the speakers report them (live AddressConflicts)")
                .register(registry);
        for (FailureReason reason : FailureReason.values()) {
            failureCounter(reason.name());
        }
    }

    private Counter failureCounter(String reason) {
        return Counter.builder("lbk8s.allocation.failures")
                .tag("reason", reason)
                .description("Allocation attempts that left a Service without an address")
                .register(registry);
    }

    void failure(String reason) {
        failureCounter(reason).increment();
    }

    void addressConflicts(int live) {
        addressConflicts.set(live);
    }

    void configValid(boolean valid) {
        configValid.set(valid ? 1 : 0);
    }

    /** Gauges hold their values weakly, so the figures live here, strongly, one pair per pool. */
    private record PoolFigures(AtomicLong total, AtomicLong inUse, AtomicLong excluded) {}

    private final Map<String, PoolFigures> pools = new ConcurrentHashMap<>();

    void usage(List<PoolUsage> usage, int assigned) {
        Set<String> before = Set.copyOf(pools.keySet());
        for (PoolUsage pool : usage) {
            PoolFigures figures = pools.computeIfAbsent(
                    pool.pool(), _ -> new PoolFigures(new AtomicLong(), new AtomicLong(), new AtomicLong()));
            figures.total().set(pool.total());
            figures.inUse().set(pool.inUse());
            figures.excluded().set(pool.excluded());
        }
        pools.keySet().retainAll(usage.stream().map(PoolUsage::pool).collect(java.util.stream.Collectors.toSet()));
        if (!before.equals(pools.keySet())) {
            poolTotal.register(
                    pools.entrySet().stream()
                            .map(e -> MultiGauge.Row.of(
                                    Tags.of("pool", e.getKey()), e.getValue().total(), AtomicLong::get))
                            .toList(),
                    true);
            poolInUse.register(
                    pools.entrySet().stream()
                            .map(e -> MultiGauge.Row.of(
                                    Tags.of("pool", e.getKey()), e.getValue().inUse(), AtomicLong::get))
                            .toList(),
                    true);
            poolExcluded.register(
                    pools.entrySet().stream()
                            .map(e -> MultiGauge.Row.of(
                                    Tags.of("pool", e.getKey()), e.getValue().excluded(), AtomicLong::get))
                            .toList(),
                    true);
        }
        servicesAssigned.set(assigned);
    }
}

package io.lbk8s.controller;

import io.lbk8s.ipam.Assignment;
import io.lbk8s.ipam.FailureReason;
import io.lbk8s.ipam.PoolUsage;
import io.lbk8s.metrics.Meters;
import io.lbk8s.service.ServiceKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/** The controller's Prometheus metrics (names as exported: lbk8s_pool_addresses{pool} and so on). */
final class ControllerMetrics {
    private final Meters meters;
    private final MultiGauge poolTotal;
    private final MultiGauge poolInUse;
    private final MultiGauge poolExcluded;
    private final AtomicInteger configValid;
    private final AtomicInteger servicesAssigned;
    private final AtomicInteger addressConflicts;
    private final MultiGauge serviceAddresses;
    private Map<ServiceKey, Assignment> lastAssignments = Map.of();

    ControllerMetrics(MeterRegistry registry) {
        meters = new Meters(registry);
        poolTotal = meters.gauges("lbk8s.pool.addresses", "Addresses a pool can hand out");
        poolInUse = meters.gauges("lbk8s.pool.addresses.in.use", "Addresses of a pool held by Services");
        poolExcluded = meters.gauges(
                "lbk8s.pool.excluded.addresses",
                "Addresses of a pool not given to any Service: a node's, its gateway's, the API server's, "
                        + "its subnet's network or broadcast address (the pool's AddressesExcluded Event says which)");
        configValid = meters.gauge(
                "lbk8s.config.valid",
                "1 when the last configuration read was valid, 0 when some object of it was refused");
        servicesAssigned = meters.gauge("lbk8s.services.assigned", "LoadBalancer Services holding addresses");
        addressConflicts = meters.gauge(
                "lbk8s.address.conflicts",
                "Pool addresses another host answers for, as the speakers report them (live AddressConflicts)");
        serviceAddresses = meters.gauges(
                "lbk8s.service.address",
                "1 for each address a Service holds, with its pool (the speakers' lbk8s_speaker_announced says who"
                        + " answers for it)");
        for (FailureReason reason : FailureReason.values()) {
            failureCounter(reason.name());
        }
    }

    private Counter failureCounter(String reason) {
        return meters.counter(
                "lbk8s.allocation.failures",
                "Allocation attempts that left a Service without an address",
                "reason",
                reason);
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
            poolTotal.register(rows(PoolFigures::total), true);
            poolInUse.register(rows(PoolFigures::inUse), true);
            poolExcluded.register(rows(PoolFigures::excluded), true);
        }
        servicesAssigned.set(assigned);
    }

    /**
     * One row an address held; registered again only when the assignments changed, since this runs after every pass
     * of the queue.
     */
    void assignments(Map<ServiceKey, Assignment> assignments) {
        if (assignments.equals(lastAssignments)) {
            return;
        }
        lastAssignments = Map.copyOf(assignments);
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (Assignment a : assignments.values()) {
            for (var ip : a.ips()) {
                rows.add(MultiGauge.Row.of(
                        Tags.of("ip", ip.toString(), "service", a.service().toString(), "pool", a.pool()), 1));
            }
        }
        serviceAddresses.register(rows, true);
    }

    /** One row a pool, reading the given figure. */
    private List<MultiGauge.Row<AtomicLong>> rows(Function<PoolFigures, AtomicLong> figure) {
        return pools.entrySet().stream()
                .map(e -> MultiGauge.Row.of(Tags.of("pool", e.getKey()), figure.apply(e.getValue()), AtomicLong::get))
                .toList();
    }
}

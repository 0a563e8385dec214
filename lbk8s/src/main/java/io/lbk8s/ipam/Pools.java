package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.service.AllocationRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured pools with their usage, in the orders the allocator looks at them: all by name; auto-assign pools
 * with a serviceAllocation by priority (given priorities ascending, unset (0) after them), then by name; auto-assign
 * pools without one by name. Built anew, empty, on every (re)configuration.
 */
final class Pools {

    final Config config;
    /** By name. */
    final List<PoolState> all;

    private final Map<String, PoolState> byName = new HashMap<>();
    /** Auto-assign pools with a serviceAllocation, in priority order. */
    private final List<PoolState> withAllocation;
    /** Auto-assign pools without serviceAllocation, by name. */
    private final List<PoolState> general;
    /** Other pools sharing addresses with a pool (normally none: the config parser rejects overlaps). */
    private final Map<PoolState, List<PoolState>> overlaps = new HashMap<>();

    Pools(Config config, ExcludedAddresses excluded) {
        this.config = config;
        List<PoolState> states = new ArrayList<>();
        for (AddressPool pool : config.pools()) {
            PoolState state = new PoolState(pool, excluded);
            states.add(state);
            byName.put(pool.name(), state);
        }
        states.sort(Comparator.comparing(s -> s.name));
        List<PoolState> allocating = new ArrayList<>();
        List<PoolState> plain = new ArrayList<>();
        for (PoolState s : states) {
            if (s.pool.autoAssign()) {
                (s.pool.serviceAllocation().isPresent() ? allocating : plain).add(s);
            }
        }
        allocating.sort(Comparator.<PoolState>comparingLong(s -> {
                    int priority = s.pool.serviceAllocation().orElseThrow().priority();
                    return priority > 0 ? priority : Long.MAX_VALUE;
                })
                .thenComparing(s -> s.name));
        for (PoolState a : states) {
            for (PoolState b : states) {
                if (a != b && overlap(a.pool, b.pool)) {
                    overlaps.computeIfAbsent(a, _ -> new ArrayList<>()).add(b);
                }
            }
        }
        this.all = List.copyOf(states);
        this.withAllocation = List.copyOf(allocating);
        this.general = List.copyOf(plain);
    }

    private static boolean overlap(AddressPool a, AddressPool b) {
        for (IpRange x : a.ranges()) {
            for (IpRange y : b.ranges()) {
                if (x.overlaps(y)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The pool of this name, or null. */
    PoolState named(String name) {
        return byName.get(name);
    }

    boolean isEmpty() {
        return all.isEmpty();
    }

    /**
     * The pools to try, without a requested pool or IP: first the auto-assign pools whose serviceAllocation selects
     * the Service, in priority order, then the auto-assign pools without serviceAllocation.
     */
    List<PoolState> candidates(AllocationRequest request) {
        if (withAllocation.isEmpty()) {
            return general;
        }
        List<PoolState> result = new ArrayList<>(withAllocation.size() + general.size());
        for (PoolState p : withAllocation) {
            if (PoolSelection.selects(p.pool.serviceAllocation().orElseThrow(), request)) {
                result.add(p);
            }
        }
        result.addAll(general);
        return result;
    }

    /** The first pool, by name, containing the address; null when none does. */
    PoolState containing(IpAddress ip) {
        for (PoolState p : all) {
            if (p.contains(ip)) {
                return p;
            }
        }
        return null;
    }

    /** Marks the address used in its pool and in every pool overlapping it. */
    void mark(PoolState pool, IpAddress ip) {
        pool.mark(ip);
        for (PoolState other : overlaps.getOrDefault(pool, List.of())) {
            other.mark(ip);
        }
    }

    /** Marks the address free in its pool and in every pool overlapping it. */
    void clear(PoolState pool, IpAddress ip) {
        pool.clear(ip);
        for (PoolState other : overlaps.getOrDefault(pool, List.of())) {
            other.clear(ip);
        }
    }
}

package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.config.ServiceAllocation;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** The sentences of allocation failures, for the user (an AllocationFailed Event): they name the pools and why. */
final class FailureMessages {
    private FailureMessages() {}

    /** At most this many excluded addresses are named in an allocation failure; the pool's Event lists more. */
    private static final int EXCLUDED_NAMED = 3;

    static Outcome.Failed poolNotFound(Pools pools, String name) {
        return new Outcome.Failed(
                FailureReason.POOL_NOT_FOUND,
                "requested pool " + Quoted.of(name) + " does not exist" + " (pools: "
                        + pools.all.stream().map(p -> Quoted.of(p.name)).collect(Collectors.joining(", ")) + ")");
    }

    static Outcome.Failed poolNotAllowed(PoolState pool) {
        return new Outcome.Failed(
                FailureReason.POOL_NOT_ALLOWED,
                "requested pool \"" + pool.name + "\" is reserved by its serviceAllocation for other Services ("
                        + reservedFor(pool) + ")");
    }

    static String reservedFor(PoolState pool) {
        ServiceAllocation sa = pool.pool.serviceAllocation().orElseThrow();
        List<String> parts = new ArrayList<>();
        if (!sa.namespaces().isEmpty()) {
            parts.add("namespaces " + new TreeSet<>(sa.namespaces()));
        }
        if (!sa.namespaceSelectors().isEmpty()) {
            parts.add("namespaces matching " + sa.namespaceSelectors().size() + " selector(s)");
        }
        if (!sa.serviceSelectors().isEmpty()) {
            parts.add("Services matching " + sa.serviceSelectors().size() + " selector(s)");
        }
        return String.join("; ", parts);
    }

    static Outcome.Failed noMatchingPool(Pools pools, AllocationRequest request) {
        List<String> limited = new ArrayList<>();
        List<String> manual = new ArrayList<>();
        for (PoolState p : pools.all) {
            if (!p.pool.autoAssign()) {
                manual.add("pool " + Quoted.of(p.name) + " has autoAssign: false");
            } else if (!PoolSelection.allows(p.pool, request)) {
                limited.add("pool " + Quoted.of(p.name) + " is limited by serviceAllocation");
            }
        }
        limited.addAll(manual);
        return new Outcome.Failed(
                FailureReason.NO_MATCHING_POOL, "no pool selects this Service: " + String.join(", ", limited));
    }

    static String describeCandidates(List<PoolState> candidates) {
        return (candidates.size() == 1 ? "pool " : "pools ")
                + candidates.stream()
                        .map(p -> Quoted.of(p.name) + " has " + familiesOf(p))
                        .collect(Collectors.joining(", "));
    }

    private static String familiesOf(PoolState p) {
        return p.hasBothFamilies() ? "IPv4 and IPv6" : p.hasFamily(IpFamily.IPv4) ? "only IPv4" : "only IPv6";
    }

    static Outcome.Failed exhausted(List<PoolState> pools, IpFamily family, String summary) {
        String what = family != null && pools.stream().anyMatch(PoolState::hasBothFamilies)
                ? "no free " + family + " address"
                : "no free address";
        List<String> each = pools.stream()
                .map(p -> "pool " + Quoted.of(p.name) + " has " + what + " " + fullness(p))
                .toList();
        String message = each.size() == 1 ? each.getFirst() : summary + ": " + String.join(", ", each);
        return new Outcome.Failed(FailureReason.POOL_EXHAUSTED, message);
    }

    /** "(3 of 4 in use)", and the excluded addresses when the pool has any: they may be why it is full. */
    static String fullness(PoolState pool) {
        String inUse = pool.inUse() + " of " + pool.total() + " in use";
        if (pool.excluded.isEmpty()) {
            return "(" + inUse + ")";
        }
        Map<IpAddress, String> named = new LinkedHashMap<>();
        for (Map.Entry<IpAddress, String> e : pool.excluded.entrySet()) {
            if (named.size() == EXCLUDED_NAMED) {
                break;
            }
            named.put(e.getKey(), e.getValue());
        }
        int more = pool.excluded.size() - named.size();
        return "(" + inUse + "; " + pool.excluded.size() + " more not given to any Service: "
                + ExcludedAddresses.describe(named) + (more > 0 ? " and " + more + " more" : "") + ")";
    }

    static String join(List<?> items) {
        return items.stream().map(Object::toString).collect(Collectors.joining(", "));
    }
}

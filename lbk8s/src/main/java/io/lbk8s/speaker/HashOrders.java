package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The nodes in each address's hash order ({@link LeaderChoice#inHashOrder}), kept while the nodes' names stay the
 * same. The order depends on the names alone: a node turning Ready or not, a configuration change, the failure
 * detector's verdicts leave it as it was, so {@link PlanCache} keeps one across plans and a plan after such a change
 * hashes nothing (with the speaker's JIT a SHA-256 costs about a microsecond, and a plan needs one per node per
 * Service).
 */
final class HashOrders {
    private List<String> names = List.of();
    private final Map<IpAddress, int[]> orders = new HashMap<>();

    /**
     * The positions in {@code sortedNames} (the nodes' names in name order) in {@code hashKey}'s hash order, equal
     * names keeping their order. The caller does not change the array.
     */
    int[] of(IpAddress hashKey, List<String> sortedNames) {
        if (!sortedNames.equals(names)) { // nodes joined or left: every order is computed again
            orders.clear();
            names = List.copyOf(sortedNames);
        }
        int[] order = orders.get(hashKey);
        if (order == null) {
            order = LeaderChoice.hashOrder(names, hashKey);
            orders.put(hashKey, order);
        }
        return order;
    }

    int size() {
        return orders.size();
    }

    /** Forgets the orders of addresses not in {@code keys} (Services deleted, or given other addresses). */
    void retain(Set<IpAddress> keys) {
        orders.keySet().retainAll(keys);
    }
}

package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who holds what under one configuration: each Service's assignment and request, each address's holders (more than
 * one when shared), and the addresses held under each sharing key; taking and dropping mark the pools.
 */
final class Holdings {

    private final Pools pools;
    private final HeldMap held = new HeldMap();
    /** Who holds an address: a ServiceKey, or a List of them when shared. */
    private final IpMap<Object> holders = new IpMap<>();
    /** Addresses held under each sharing key. */
    private final Map<String, Set<IpAddress>> sharedByKey = new HashMap<>();

    Holdings(Pools pools) {
        this.pools = pools;
    }

    int size() {
        return held.size();
    }

    /** What the Service holds, or null. */
    Held of(ServiceKey key) {
        Assignment a = held.assignment(key);
        return a == null ? null : new Held(held.request(key), a);
    }

    Assignment assignment(ServiceKey key) {
        return held.assignment(key);
    }

    /** Every Service's holding, in no order. */
    List<Held> all() {
        List<Held> all = new ArrayList<>(held.size());
        List<AllocationRequest> requests = held.requests();
        List<Assignment> assignments = held.assignments();
        for (int i = 0; i < requests.size(); i++) {
            all.add(new Held(requests.get(i), assignments.get(i)));
        }
        return all;
    }

    /** The addresses held under a sharing key; empty when none. */
    Set<IpAddress> sharedUnder(String sharingKey) {
        return sharedByKey.getOrDefault(sharingKey, Set.of());
    }

    Held take(AllocationRequest request, PoolState pool, Assignment assignment) {
        ServiceKey key = assignment.service();
        Held h = new Held(request, assignment);
        held.put(key, request, assignment);
        String sharingKey = request.sharingKey().orElse(null);
        for (IpAddress ip : assignment.ips()) {
            Object before = holders.get(ip);
            if (before == null) {
                holders.put(ip, key);
                pools.mark(pool, ip);
            } else if (before instanceof ServiceKey single) {
                List<ServiceKey> list = new ArrayList<>(2);
                list.add(single);
                list.add(key);
                holders.put(ip, list);
            } else {
                @SuppressWarnings("unchecked")
                List<ServiceKey> list = (List<ServiceKey>) before;
                list.add(key);
            }
            if (sharingKey != null) {
                sharedByKey.computeIfAbsent(sharingKey, _ -> new HashSet<>()).add(ip);
            }
        }
        return h;
    }

    /** Records a newer request for what a Service holds, under the same sharing key. */
    Held rerequest(AllocationRequest request, Assignment assignment) {
        held.put(assignment.service(), request, assignment);
        return new Held(request, assignment);
    }

    /** Lets go of what the Service holds; returns it, or null when it held nothing. */
    Assignment drop(ServiceKey key) {
        Assignment assignment = held.assignment(key);
        if (assignment == null) {
            return null;
        }
        AllocationRequest request = held.remove(key);
        String sharingKey = request.sharingKey().orElse(null);
        for (IpAddress ip : assignment.ips()) {
            Object before = holders.get(ip);
            boolean stillHeld;
            if (before instanceof ServiceKey) {
                holders.remove(ip);
                stillHeld = false;
            } else {
                @SuppressWarnings("unchecked")
                List<ServiceKey> list = (List<ServiceKey>) before;
                list.remove(key);
                if (list.size() == 1) {
                    holders.put(ip, list.getFirst());
                }
                stillHeld = true;
            }
            if (!stillHeld) {
                pools.clear(pools.named(assignment.pool()), ip);
            }
            if (sharingKey != null) {
                boolean keyRemains = false;
                for (ServiceKey other : holdersOf(ip)) {
                    keyRemains |= held.request(other).sharingKey().map(sharingKey::equals).orElse(false);
                }
                if (!keyRemains) {
                    Set<IpAddress> set = sharedByKey.get(sharingKey);
                    if (set != null) {
                        set.remove(ip);
                        if (set.isEmpty()) {
                            sharedByKey.remove(sharingKey);
                        }
                    }
                }
            }
        }
        return assignment;
    }

    /** The Services holding an address (more than one when shared). */
    List<ServiceKey> holdersOf(IpAddress ip) {
        Object h = holders.get(ip);
        if (h == null) {
            return List.of();
        }
        if (h instanceof ServiceKey single) {
            return List.of(single);
        }
        @SuppressWarnings("unchecked")
        List<ServiceKey> list = (List<ServiceKey>) h;
        return List.copyOf(list);
    }

    /**
     * Why the requesting Service may not hold this address next to its other holders, as "ns/name, which does not
     * allow sharing with this Service (reason)", or null if it may.
     */
    String conflict(AllocationRequest request, IpAddress ip) {
        for (ServiceKey other : holdersOf(ip)) {
            if (!other.equals(request.service())) {
                String why = Sharing.problem(request, held.request(other));
                if (why != null) {
                    return other + ", which does not allow sharing with this Service (" + why + ")";
                }
            }
        }
        return null;
    }
}

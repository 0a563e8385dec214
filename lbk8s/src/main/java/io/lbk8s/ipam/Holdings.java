package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Who holds what under one configuration: each Service's assignment and request, each address's holders (more than
 * one when shared), and the addresses held under each sharing key; taking and dropping mark the pools.
 */
final class Holdings {

    private final Pools pools;
    private final Map<ServiceKey, Held> held = new HashMap<>();
    /** Who holds an address: one Service, or more when shared. Immutable lists, replaced on change. */
    private final Map<IpAddress, List<ServiceKey>> holders = new HashMap<>();
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
        return held.get(key);
    }

    Assignment assignment(ServiceKey key) {
        Held h = held.get(key);
        return h == null ? null : h.assignment();
    }

    /** Every Service's holding, in no order. */
    List<Held> all() {
        return List.copyOf(held.values());
    }

    /** The addresses held under a sharing key; empty when none. */
    Set<IpAddress> sharedUnder(String sharingKey) {
        return sharedByKey.getOrDefault(sharingKey, Set.of());
    }

    Held take(AllocationRequest request, PoolState pool, Assignment assignment) {
        ServiceKey key = assignment.service();
        Held h = new Held(request, assignment);
        held.put(key, h);
        for (IpAddress ip : assignment.ips()) {
            List<ServiceKey> before = holders.get(ip);
            if (before == null) {
                holders.put(ip, List.of(key));
                pools.mark(pool, ip);
            } else {
                holders.put(ip, Stream.concat(before.stream(), Stream.of(key)).toList());
            }
            request.sharingKey()
                    .ifPresent(k ->
                            sharedByKey.computeIfAbsent(k, _ -> new HashSet<>()).add(ip));
        }
        return h;
    }

    /** Records a newer request for what a Service holds, under the same sharing key. */
    Held rerequest(AllocationRequest request, Assignment assignment) {
        Held h = new Held(request, assignment);
        held.put(assignment.service(), h);
        return h;
    }

    /** Lets go of what the Service holds; returns it, or null when it held nothing. */
    Assignment drop(ServiceKey key) {
        Held h = held.remove(key);
        if (h == null) {
            return null;
        }
        Assignment assignment = h.assignment();
        for (IpAddress ip : assignment.ips()) {
            List<ServiceKey> rest =
                    holdersOf(ip).stream().filter(k -> !k.equals(key)).toList();
            if (rest.isEmpty()) {
                holders.remove(ip);
                pools.clear(pools.named(assignment.pool()), ip);
            } else {
                holders.put(ip, rest);
            }
            h.request().sharingKey().ifPresent(sharingKey -> {
                boolean keyRemains = rest.stream()
                        .anyMatch(
                                other -> held.get(other).request().sharingKey().equals(Optional.of(sharingKey)));
                Set<IpAddress> shared = sharedByKey.get(sharingKey);
                if (!keyRemains && shared != null) {
                    shared.remove(ip);
                    if (shared.isEmpty()) {
                        sharedByKey.remove(sharingKey);
                    }
                }
            });
        }
        return assignment;
    }

    /** The Services holding an address (more than one when shared). */
    List<ServiceKey> holdersOf(IpAddress ip) {
        return holders.getOrDefault(ip, List.of());
    }

    /**
     * Why the requesting Service may not hold this address next to its other holders, as "ns/name, which does not
     * allow sharing with this Service (reason)", or null if it may.
     */
    String conflict(AllocationRequest request, IpAddress ip) {
        for (ServiceKey other : holdersOf(ip)) {
            if (!other.equals(request.service())) {
                String why = Sharing.problem(request, held.get(other).request());
                if (why != null) {
                    return other + ", which does not allow sharing with this Service (" + why + ")";
                }
            }
        }
        return null;
    }
}

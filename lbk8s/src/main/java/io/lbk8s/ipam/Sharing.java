package io.lbk8s.ipam;

import io.lbk8s.service.AllocationRequest;
import io.lbk8s.text.Quoted;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * MetalLB's sharing rule: two Services may hold one address only when both have the same non-empty sharing key, the
 * same backend key (Cluster traffic policy: empty; Local: the selector) and no common port (protocol and number).
 */
final class Sharing {
    private Sharing() {}

    /** Why the two Services may not share an address, or null when they may. */
    static String problem(AllocationRequest mine, AllocationRequest theirs) {
        if (theirs.sharingKey().isEmpty()) {
            return "it has no allow-shared-ip key";
        }
        if (mine.sharingKey().isEmpty()) {
            return "this Service has no allow-shared-ip key";
        }
        if (!mine.sharingKey().get().equals(theirs.sharingKey().get())) {
            return "sharing keys " + Quoted.of(theirs.sharingKey().get()) + " and "
                    + Quoted.of(mine.sharingKey().get()) + " differ";
        }
        if (!backendKey(mine).equals(backendKey(theirs))) {
            return mine.localTraffic() != theirs.localTraffic()
                    ? "one has externalTrafficPolicy Local, the other Cluster"
                    : "both have externalTrafficPolicy Local but different selectors";
        }
        var overlap = mine.ports().stream()
                .filter(theirs.ports()::contains)
                .distinct()
                .toList();
        if (!overlap.isEmpty()) {
            return "ports " + overlap.stream().map(Object::toString).collect(Collectors.joining(", ")) + " overlap";
        }
        return null;
    }

    private static Map<String, String> backendKey(AllocationRequest r) {
        return r.localTraffic() ? r.selector() : Map.of();
    }
}

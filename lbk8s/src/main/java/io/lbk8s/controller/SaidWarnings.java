package io.lbk8s.controller;

import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServiceRequests.Warning;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The warnings already told about each Service, so that each is said once rather than on every reconcile. A
 * Service is reconciled whenever anything about it or the configuration changes; its warnings change only with its
 * annotations. A warning that goes away (the user fixed the annotation) is forgotten, so that it is said again if
 * it comes back; a Service deleted and created again under the same name (another uid) hears everything afresh.
 * Owned by the reconcile thread.
 */
final class SaidWarnings {

    private record Said(String uid, Set<Warning> warnings) {}

    private final Map<ServiceKey, Said> said = new HashMap<>();

    /** The warnings not said yet about this Service, which are from now on taken as said. */
    List<Warning> unsaid(ServiceKey key, String uid, List<Warning> warnings) {
        Said before = said.get(key);
        Set<Warning> known = before != null && before.uid().equals(uid) ? before.warnings() : Set.of();
        if (warnings.isEmpty()) {
            said.remove(key); // as good as said with none, and most Services have none: nothing kept for them
        } else {
            said.put(key, new Said(uid, Set.copyOf(warnings)));
        }
        return warnings.stream().filter(w -> !known.contains(w)).toList();
    }

    void forget(ServiceKey key) {
        said.remove(key);
    }
}

package io.lbk8s.ipam;

import io.lbk8s.config.AddressPool;
import io.lbk8s.config.LabelSelector;
import io.lbk8s.config.ServiceAllocation;
import io.lbk8s.service.AllocationRequest;
import java.util.List;
import java.util.Map;

/** Which pools may give a Service addresses: MetalLB's serviceAllocation match. */
final class PoolSelection {
    private PoolSelection() {}

    /** Whether a pool may give addresses to the Service: no serviceAllocation, or one that selects it. */
    static boolean allows(AddressPool pool, AllocationRequest request) {
        return pool.serviceAllocation().map(sa -> selects(sa, request)).orElse(true);
    }

    /** MetalLB's serviceAllocation match: the namespace condition AND the service-label condition, each if stated. */
    static boolean selects(ServiceAllocation sa, AllocationRequest request) {
        boolean namespaceStated =
                !sa.namespaces().isEmpty() || !sa.namespaceSelectors().isEmpty();
        if (namespaceStated
                && !sa.namespaces().contains(request.service().namespace())
                && !anyMatches(sa.namespaceSelectors(), request.namespaceLabels())) {
            return false;
        }
        return sa.serviceSelectors().isEmpty() || anyMatches(sa.serviceSelectors(), request.serviceLabels());
    }

    private static boolean anyMatches(List<LabelSelector> selectors, Map<String, String> labels) {
        for (LabelSelector s : selectors) {
            if (s.matches(labels)) {
                return true;
            }
        }
        return false;
    }
}

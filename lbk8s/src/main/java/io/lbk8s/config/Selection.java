package io.lbk8s.config;

import java.util.List;
import java.util.Map;

/** MetalLB's rules for the pools and nodes an advertisement or a peer applies to, the same in every kind. */
final class Selection {
    private Selection() {}

    /** No names and no selectors mean every pool; otherwise a pool named or matched by any selector. */
    static boolean selectsPool(List<String> names, List<LabelSelector> selectors, AddressPool pool) {
        if (names.isEmpty() && selectors.isEmpty()) {
            return true;
        }
        return names.contains(pool.name()) || selectors.stream().anyMatch(s -> s.matches(pool.labels()));
    }

    /** No selectors mean every node; otherwise a node any selector matches. */
    static boolean allowsNode(List<LabelSelector> selectors, Map<String, String> nodeLabels) {
        return selectors.isEmpty() || selectors.stream().anyMatch(s -> s.matches(nodeLabels));
    }
}

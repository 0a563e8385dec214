package io.lbk8s.config;

import java.util.List;

/**
 * A validated MetalLB L2Advertisement. Empty {@code ipAddressPools} and {@code ipAddressPoolSelectors} mean
 * "every pool"; empty {@code nodeSelectors} mean "every node"; {@code preferredNodeSelectors} order the allowed nodes by weight; empty {@code interfaces} mean "choose by subnet".
 */
public record L2Advertisement(
        String name,
        List<String> ipAddressPools,
        List<LabelSelector> ipAddressPoolSelectors,
        List<LabelSelector> nodeSelectors,
        List<PreferredNodeSelector> preferredNodeSelectors,
        List<String> interfaces,
        ConfigOrigin origin) {

    public L2Advertisement {
        ipAddressPools = List.copyOf(ipAddressPools);
        ipAddressPoolSelectors = List.copyOf(ipAddressPoolSelectors);
        nodeSelectors = List.copyOf(nodeSelectors);
        preferredNodeSelectors = List.copyOf(preferredNodeSelectors);
        interfaces = List.copyOf(interfaces);
    }

    public boolean selects(AddressPool pool) {
        return Selection.selectsPool(ipAddressPools, ipAddressPoolSelectors, pool);
    }

    /** Whether a node with these labels may announce for this advertisement's pools. */
    public boolean allowsNode(java.util.Map<String, String> nodeLabels) {
        return Selection.allowsNode(nodeSelectors, nodeLabels);
    }

    /** The summed weight of the preferences a node with these labels matches; 0 when none. */
    public int preferenceWeight(java.util.Map<String, String> nodeLabels) {
        int total = 0;
        for (PreferredNodeSelector preferred : preferredNodeSelectors) {
            if (preferred.preference().matches(nodeLabels)) {
                total += preferred.weight();
            }
        }
        return total;
    }
}

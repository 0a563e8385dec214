package io.lbk8s.config;

import java.util.List;

/**
 * A validated MetalLB L2Advertisement. Empty {@code ipAddressPools} and {@code ipAddressPoolSelectors} mean
 * "every pool"; empty {@code nodeSelectors} mean "every node"; empty {@code interfaces} mean "choose by subnet".
 */
public record L2Advertisement(
        String name,
        List<String> ipAddressPools,
        List<LabelSelector> ipAddressPoolSelectors,
        List<LabelSelector> nodeSelectors,
        List<String> interfaces,
        ConfigOrigin origin) {

    public L2Advertisement {
        ipAddressPools = List.copyOf(ipAddressPools);
        ipAddressPoolSelectors = List.copyOf(ipAddressPoolSelectors);
        nodeSelectors = List.copyOf(nodeSelectors);
        interfaces = List.copyOf(interfaces);
    }

    public boolean selects(AddressPool pool) {
        if (ipAddressPools.isEmpty() && ipAddressPoolSelectors.isEmpty()) {
            return true;
        }
        return ipAddressPools.contains(pool.name())
                || ipAddressPoolSelectors.stream().anyMatch(s -> s.matches(pool.labels()));
    }
}

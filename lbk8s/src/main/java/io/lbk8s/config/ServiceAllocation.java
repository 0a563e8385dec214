package io.lbk8s.config;

import java.util.List;
import java.util.Set;

/**
 * MetalLB's {@code spec.serviceAllocation} of an IPAddressPool: which Services the pool is reserved for, and with
 * what priority (lower number first; 0 means "no priority given", which sorts after every given priority).
 */
public record ServiceAllocation(
        int priority,
        Set<String> namespaces,
        List<LabelSelector> namespaceSelectors,
        List<LabelSelector> serviceSelectors) {

    public ServiceAllocation {
        namespaces = Set.copyOf(namespaces);
        namespaceSelectors = List.copyOf(namespaceSelectors);
        serviceSelectors = List.copyOf(serviceSelectors);
    }
}

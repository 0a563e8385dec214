package io.lbk8s.service;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a LoadBalancer Service asks of the allocator, already parsed from its spec and annotations.
 *
 * @param families        {@code spec.ipFamilies} in order; empty means "whatever the pool offers, IPv4 first"
 * @param pool            the pool named by an address-pool annotation
 * @param requestedIps    specific addresses (at most one per family) from an annotation or {@code loadBalancerIP}
 * @param sharingKey      the allow-shared-ip annotation's key
 * @param ports           the Service's ports, for the sharing rule
 * @param localTraffic    {@code externalTrafficPolicy: Local}
 * @param selector        {@code spec.selector}; Local Services may share an IP only with the same selector
 */
public record AllocationRequest(
        ServiceKey service,
        Map<String, String> serviceLabels,
        Map<String, String> namespaceLabels,
        List<IpFamily> families,
        FamilyPolicy familyPolicy,
        Optional<String> pool,
        List<IpAddress> requestedIps,
        Optional<String> sharingKey,
        List<ServicePort> ports,
        boolean localTraffic,
        Map<String, String> selector) {

    public AllocationRequest {
        serviceLabels = Map.copyOf(serviceLabels);
        namespaceLabels = Map.copyOf(namespaceLabels);
        families = List.copyOf(families);
        requestedIps = List.copyOf(requestedIps);
        ports = List.copyOf(ports);
        selector = Map.copyOf(selector);
    }

    /** A plain request: one IPv4 address from any auto-assign pool, no sharing. */
    public static AllocationRequest simple(ServiceKey service) {
        return new AllocationRequest(
                service,
                Map.of(),
                Map.of(),
                List.of(IpFamily.IPv4),
                FamilyPolicy.SingleStack,
                Optional.empty(),
                List.of(),
                Optional.empty(),
                List.of(new ServicePort("TCP", 80)),
                false,
                Map.of());
    }
}

package io.lbk8s.service;

import io.lbk8s.address.IpAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The parts of a Service the allocation decisions read, copied out of the API object so that those decisions stay
 * free of Kubernetes types. Absent strings are empty Optionals; absent maps and lists are empty.
 */
public record ServiceView(
        ServiceKey key,
        String type,
        Optional<String> loadBalancerClass,
        Map<String, String> annotations,
        Map<String, String> labels,
        Optional<String> loadBalancerIP,
        List<String> ipFamilies,
        Optional<String> ipFamilyPolicy,
        List<ServicePort> ports,
        Optional<String> externalTrafficPolicy,
        Map<String, String> selector,
        List<IpAddress> statusIps) {

    public ServiceView {
        annotations = Map.copyOf(annotations);
        labels = Map.copyOf(labels);
        ipFamilies = List.copyOf(ipFamilies);
        ports = List.copyOf(ports);
        selector = Map.copyOf(selector);
        statusIps = List.copyOf(statusIps);
    }

    public boolean isLoadBalancer() {
        return "LoadBalancer".equals(type);
    }
}

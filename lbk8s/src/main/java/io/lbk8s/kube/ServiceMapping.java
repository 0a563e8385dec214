package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.lbk8s.address.IpAddress;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServiceView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Copies the fields lbk8s decides on out of a fabric8 Service, tolerating every field being absent. */
public final class ServiceMapping {
    private ServiceMapping() {}

    public static ServiceKey keyOf(Service service) {
        return new ServiceKey(
                service.getMetadata().getNamespace(), service.getMetadata().getName());
    }

    public static ServiceView view(Service service) {
        ServiceSpec spec = Optional.ofNullable(service.getSpec()).orElseGet(ServiceSpec::new);
        List<io.lbk8s.service.ServicePort> ports = new ArrayList<>();
        for (ServicePort port : nullToEmpty(spec.getPorts())) {
            if (port.getPort() != null) {
                ports.add(new io.lbk8s.service.ServicePort(
                        Optional.ofNullable(port.getProtocol()).orElse("TCP"), port.getPort()));
            }
        }
        return new ServiceView(
                keyOf(service),
                Optional.ofNullable(spec.getType()).orElse("ClusterIP"),
                Optional.ofNullable(spec.getLoadBalancerClass()),
                nullToEmpty(service.getMetadata().getAnnotations()),
                nullToEmpty(service.getMetadata().getLabels()),
                Optional.ofNullable(spec.getLoadBalancerIP()),
                nullToEmpty(spec.getIpFamilies()),
                Optional.ofNullable(spec.getIpFamilyPolicy()),
                ports,
                Optional.ofNullable(spec.getExternalTrafficPolicy()),
                nullToEmpty(spec.getSelector()),
                statusIps(service));
    }

    /** The IP addresses in {@code status.loadBalancer.ingress}; host names and garbage are skipped. */
    public static List<IpAddress> statusIps(Service service) {
        if (service.getStatus() == null || service.getStatus().getLoadBalancer() == null) {
            return List.of();
        }
        return nullToEmpty(service.getStatus().getLoadBalancer().getIngress()).stream()
                .map(LoadBalancerIngress::getIp)
                .filter(Objects::nonNull)
                .map(IpAddress::parse)
                .flatMap(Optional::stream)
                .toList();
    }

    private static <T> List<T> nullToEmpty(List<T> list) {
        return list == null ? List.of() : list.stream().filter(Objects::nonNull).toList();
    }

    private static Map<String, String> nullToEmpty(Map<String, String> map) {
        if (map == null) {
            return Map.of();
        }
        var copy = new java.util.HashMap<String, String>();
        map.forEach((k, v) -> {
            if (k != null && v != null) {
                copy.put(k, v);
            }
        });
        return copy;
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An informer's cache of Services that keeps, of each, only what lbk8s reads: the fields {@link ServiceMapping#view}
 * and {@link ServiceMapping#statusIps} read, {@code publishNotReadyAddresses} (the speaker's endpoints), the uid
 * claims and Events name, the resourceVersion its writes state.
 * A whole fabric8 Service (managed fields, cluster IPs, a map of unknown properties in every nested object) is several
 * times that, and at 10,000 Services the cache was most of the controller's heap; fabric8's ReducedStateItemStore
 * keeps the chosen fields as Jackson maps and lists, which saved little. Recurring words (types, protocols, the keys
 * of annotations, labels and selectors) are interned: thousands of Services share a few of them.
 *
 * <p>What it returns is a Service rebuilt from those fields alone: never write it back whole ({@link
 * ServiceStatusPatch} writes the status alone).
 */
public final class CompactServiceStore extends CompactStore<Service, CompactServiceStore.Kept> {
    private record Port(String protocol, Integer port) {}

    private record Ingress(String ip, String hostname, String ipMode) {}

    record Kept(
            String uid,
            String resourceVersion,
            Map<String, String> annotations,
            Map<String, String> labels,
            String type,
            String loadBalancerClass,
            String loadBalancerIP,
            List<String> ipFamilies,
            String ipFamilyPolicy,
            List<Port> ports,
            String externalTrafficPolicy,
            Boolean publishNotReadyAddresses,
            Map<String, String> selector,
            List<Ingress> ingress) {}

    @Override
    Kept keep(Service service) {
        ObjectMeta meta = service.getMetadata();
        ServiceSpec spec = Optional.ofNullable(service.getSpec()).orElseGet(ServiceSpec::new);
        List<Port> ports = spec.getPorts() == null
                ? List.of()
                : spec.getPorts().stream()
                        .filter(Objects::nonNull)
                        .map(p -> new Port(intern(p.getProtocol()), p.getPort()))
                        .toList();
        List<LoadBalancerIngress> ingress = Optional.ofNullable(service.getStatus())
                .map(ServiceStatus::getLoadBalancer)
                .map(LoadBalancerStatus::getIngress)
                .orElse(List.of());
        return new Kept(
                meta.getUid(),
                meta.getResourceVersion(),
                compact(meta.getAnnotations()),
                compact(meta.getLabels()),
                intern(spec.getType()),
                intern(spec.getLoadBalancerClass()),
                spec.getLoadBalancerIP(),
                spec.getIpFamilies() == null
                        ? List.of()
                        : spec.getIpFamilies().stream()
                                .filter(Objects::nonNull)
                                .map(CompactStore::intern)
                                .toList(),
                intern(spec.getIpFamilyPolicy()),
                ports,
                intern(spec.getExternalTrafficPolicy()),
                spec.getPublishNotReadyAddresses(),
                compact(spec.getSelector()),
                ingress.stream()
                        .filter(Objects::nonNull)
                        .map(i -> new Ingress(i.getIp(), i.getHostname(), intern(i.getIpMode())))
                        .toList());
    }

    @Override
    Service restore(String key, Kept k) {
        ObjectMeta meta = meta(key, k.uid(), k.resourceVersion());
        meta.setAnnotations(new HashMap<>(k.annotations()));
        meta.setLabels(new HashMap<>(k.labels()));
        ServiceSpec spec = new ServiceSpec();
        spec.setType(k.type());
        spec.setLoadBalancerClass(k.loadBalancerClass());
        spec.setLoadBalancerIP(k.loadBalancerIP());
        spec.setIpFamilies(new ArrayList<>(k.ipFamilies()));
        spec.setIpFamilyPolicy(k.ipFamilyPolicy());
        List<io.fabric8.kubernetes.api.model.ServicePort> ports = new ArrayList<>();
        for (Port p : k.ports()) {
            var port = new io.fabric8.kubernetes.api.model.ServicePort();
            port.setProtocol(p.protocol());
            port.setPort(p.port());
            ports.add(port);
        }
        spec.setPorts(ports);
        spec.setExternalTrafficPolicy(k.externalTrafficPolicy());
        spec.setPublishNotReadyAddresses(k.publishNotReadyAddresses());
        spec.setSelector(new HashMap<>(k.selector()));
        List<LoadBalancerIngress> ingress = new ArrayList<>();
        for (Ingress i : k.ingress()) {
            var entry = new LoadBalancerIngress();
            entry.setIp(i.ip());
            entry.setHostname(i.hostname());
            entry.setIpMode(i.ipMode());
            ingress.add(entry);
        }
        LoadBalancerStatus loadBalancer = new LoadBalancerStatus();
        loadBalancer.setIngress(ingress);
        ServiceStatus status = new ServiceStatus();
        status.setLoadBalancer(loadBalancer);
        Service service = new Service();
        service.setMetadata(meta);
        service.setSpec(spec);
        service.setStatus(status);
        return service;
    }

    /** Without null keys or values, the keys interned. */
    private static Map<String, String> compact(Map<String, String> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new HashMap<>();
        map.forEach((k, v) -> {
            if (k != null && v != null) {
                copy.put(intern(k), v);
            }
        });
        return Map.copyOf(copy);
    }
}

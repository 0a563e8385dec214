package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a Service's {@code status.loadBalancer.ingress} and nothing else: a JSON merge patch of the status
 * subresource. A PUT of the whole object would carry the controller's cached copy, which keeps only the fields lbk8s
 * reads ({@link CompactServiceStore}), and kube-apiserver's status strategy resets the spec but not the metadata
 * (finalizers, owner references would be lost). The patch states the resourceVersion the decision was made on: a stale
 * cache gets 409 Conflict, as a PUT would. The patch goes to the Service as given (its name and namespace), not to a
 * name alone: fabric8 would first GET a resource known by name only, one more round trip between a Service's creation
 * and its address (BgpBenchmark's phases).
 */
public final class ServiceStatusPatch {
    private ServiceStatusPatch() {}

    /** Shows {@code ips} (none: the ingress list is removed) on the version of {@code service} that was read. */
    public static void write(KubernetesClient client, Service service, List<String> ips) {
        client.services()
                .resource(service)
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        client.getKubernetesSerialization()
                                .asJson(body(service.getMetadata().getResourceVersion(), ips)));
    }

    /** The patch, written with the client's own serializer: a merge patch replaces a list whole, and a null removes it. */
    private static Map<String, Object> body(String resourceVersion, List<String> ips) {
        Map<String, Object> loadBalancer = new LinkedHashMap<>();
        loadBalancer.put(
                "ingress",
                ips.isEmpty()
                        ? null
                        : ips.stream()
                                .map(ip -> Map.of("ip", ip, "ipMode", "VIP"))
                                .toList());
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("resourceVersion", resourceVersion);
        return Map.of("metadata", metadata, "status", Map.of("loadBalancer", loadBalancer));
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.service.ServiceKey;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Keeps one MetalLB-style status object (a ServiceL2Status, a ServiceBGPStatus) per Service this node announces, and
 * none for the others (removing those a failed previous leader left behind, and only those: a live node removes its
 * own when it stops announcing, and removing it for it could race with its taking the Service back). Writes run in
 * order on a thread of their own so that a slow API server never delays answering ARP.
 */
public class ServiceStatuses extends NodeStatusObjects<ServiceKey, Set<String>> {
    public static final String NODE_LABEL = NodeStatusObjects.NODE_LABEL;
    public static final String SERVICE_NAME_LABEL = "metallb.io/service-name";
    public static final String SERVICE_NAMESPACE_LABEL = "metallb.io/service-namespace";

    /**
     * One kind of these objects.
     *
     * @param prefix  starts each object's name, which is the same at every restart of the speaker
     * @param detail  the name of the status field that lists what {@link #publish} gives per Service (interfaces,
     *                peers), and how each is written in it
     */
    public record Kind(
            ResourceDefinitionContext context, String prefix, String detail, Function<String, Object> item) {}

    protected ServiceStatuses(
            Kind kind, KubernetesClient client, String namespace, String node, Predicate<String> failedNow) {
        super(
                new Shape<ServiceKey, Set<String>>(
                        kind.context(),
                        kind.prefix(),
                        service -> service.namespace() + "/" + service.name(),
                        service -> Map.of(
                                SERVICE_NAME_LABEL, service.name(), SERVICE_NAMESPACE_LABEL, service.namespace()),
                        labels -> new ServiceKey(labels.get(SERVICE_NAMESPACE_LABEL), labels.get(SERVICE_NAME_LABEL)),
                        (service, details) -> Map.of(
                                "serviceName",
                                service.name(),
                                "serviceNamespace",
                                service.namespace(),
                                kind.detail(),
                                details.stream().sorted().map(kind.item()).toList())),
                client,
                namespace,
                node,
                failedNow);
    }

    /**
     * Makes this node's objects match {@code detailsByService}, and removes the objects of the Services it writes
     * that {@code failedNodes} left behind; called from one thread.
     */
    @Override
    public void publish(Map<ServiceKey, Set<String>> detailsByService, Set<String> failedNodes) {
        super.publish(detailsByService, failedNodes);
    }

    /**
     * The next {@link #publish} writes every object again: while this node was away (frozen, cut off) the new leader
     * removed them.
     */
    @Override
    public void rewriteAll() {
        super.rewriteAll();
    }
}

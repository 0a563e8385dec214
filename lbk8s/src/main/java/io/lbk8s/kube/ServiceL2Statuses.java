package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.function.Predicate;

/** One ServiceL2Status per Service this node answers ARP/NDP for: the interfaces it answers on. */
public final class ServiceL2Statuses extends ServiceStatuses {
    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("ServiceL2Status", "servicel2statuses");

    /** @param failedNow whether a node has failed by what this speaker knows now (see {@link ServiceStatuses}) */
    public ServiceL2Statuses(KubernetesClient client, String namespace, String node, Predicate<String> failedNow) {
        super(new Kind(CONTEXT, "l2", "interfaces", name -> Map.of("name", name)), client, namespace, node, failedNow);
    }
}

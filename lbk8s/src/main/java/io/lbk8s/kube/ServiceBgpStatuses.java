package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.function.Predicate;

/**
 * One ServiceBGPStatus per Service this node advertises over BGP, as MetalLB writes them: the BGPPeers it is
 * advertised to from this node (whether each session is up is in the BGPSessionStates).
 */
public final class ServiceBgpStatuses extends ServiceStatuses {
    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("ServiceBGPStatus", "servicebgpstatuses");

    /** @param failedNow whether a node has failed by what this speaker knows now (see {@link ServiceStatuses}) */
    public ServiceBgpStatuses(KubernetesClient client, String namespace, String node, Predicate<String> failedNow) {
        super(new Kind(CONTEXT, "bgp", "peers", peer -> peer), client, namespace, node, failedNow);
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * One ServiceBGPStatus per Service this node advertises over BGP, as MetalLB writes them: the BGPPeers it is
 * advertised to from this node (whether each session is up is in the BGPSessionStates).
 */
public final class ServiceBgpStatuses extends ServiceStatuses {
    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("ServiceBGPStatus", "servicebgpstatuses");

    public ServiceBgpStatuses(KubernetesClient client, String namespace, String node) {
        super(new Kind(CONTEXT, "bgp", "peers", peer -> peer), client, namespace, node);
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.config.ConfigOrigin;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The informers on MetalLB's BGP kinds (BGPPeer, BGPAdvertisement, Community, BFDProfile) in lbk8s's namespace,
 * which the controller and the speaker both run. A kind whose CRD is missing (a cluster installed before lbk8s
 * had BGP) is logged and read as having no objects, as for the layer-2 kinds.
 */
public final class BgpConfigInformers {
    private final Optional<SharedIndexInformer<GenericKubernetesResource>> peers;
    private final Optional<SharedIndexInformer<GenericKubernetesResource>> advertisements;
    private final Optional<SharedIndexInformer<GenericKubernetesResource>> communities;
    private final Optional<SharedIndexInformer<GenericKubernetesResource>> bfdProfiles;

    /** No informers: what a component holds before it starts. */
    public static final BgpConfigInformers NONE =
            new BgpConfigInformers(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    private BgpConfigInformers(
            Optional<SharedIndexInformer<GenericKubernetesResource>> peers,
            Optional<SharedIndexInformer<GenericKubernetesResource>> advertisements,
            Optional<SharedIndexInformer<GenericKubernetesResource>> communities,
            Optional<SharedIndexInformer<GenericKubernetesResource>> bfdProfiles) {
        this.peers = peers;
        this.advertisements = advertisements;
        this.communities = communities;
        this.bfdProfiles = bfdProfiles;
    }

    /** Starts the four informers and waits for their first lists, as {@link Watches#customResources} does. */
    public static BgpConfigInformers start(
            Watches watches,
            KubernetesClient client,
            String namespace,
            ResourceEventHandler<GenericKubernetesResource> handler) {
        return new BgpConfigInformers(
                watches.customResources(client, ConfigResources.BGP_PEERS, namespace, handler),
                watches.customResources(client, ConfigResources.BGP_ADVERTISEMENTS, namespace, handler),
                watches.customResources(client, ConfigResources.COMMUNITIES, namespace, handler),
                watches.customResources(client, ConfigResources.BFD_PROFILES, namespace, handler));
    }

    /** What the informers hold now. */
    public ConfigResources.BgpObjects objects() {
        return new ConfigResources.BgpObjects(list(peers), list(advertisements), list(communities), list(bfdProfiles));
    }

    /** The object a problem is about, to put an Event on it; empty for a kind that is not BGP's. */
    public Optional<GenericKubernetesResource> object(ConfigOrigin origin) {
        Optional<SharedIndexInformer<GenericKubernetesResource>> informer = switch (origin.kind()) {
            case BGPPeer -> peers;
            case BGPAdvertisement -> advertisements;
            case Community -> communities;
            case BFDProfile -> bfdProfiles;
            case IPAddressPool, L2Advertisement, ConfigMap -> Optional.empty();
        };
        return informer.map(i -> i.getStore().getByKey(origin.namespace() + "/" + origin.name()));
    }

    private static Collection<GenericKubernetesResource> list(
            Optional<SharedIndexInformer<GenericKubernetesResource>> informer) {
        return informer.map(i -> i.getStore().list()).orElse(List.of());
    }
}

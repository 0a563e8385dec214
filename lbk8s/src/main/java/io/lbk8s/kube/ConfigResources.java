package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.config.ConfigSources;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where lbk8s configuration lives in the API, and how it becomes {@link ConfigSources}. The custom resources are
 * read as generic objects: a malformed one then reaches the parser as data to report, instead of stopping a typed
 * informer for good.
 */
public final class ConfigResources {
    private ConfigResources() {}

    public static final String CONFIG_MAP_NAME = "lbk8s-config";
    public static final String CONFIG_MAP_KEY = "config.yaml";

    public static final ResourceDefinitionContext IP_ADDRESS_POOLS =
            CustomResources.metallb("IPAddressPool", "ipaddresspools");
    public static final ResourceDefinitionContext L2_ADVERTISEMENTS =
            CustomResources.metallb("L2Advertisement", "l2advertisements");

    public static final ResourceDefinitionContext BGP_PEERS = CustomResources.metallb("v1beta2", "BGPPeer", "bgppeers");
    public static final ResourceDefinitionContext BGP_ADVERTISEMENTS =
            CustomResources.metallb("BGPAdvertisement", "bgpadvertisements");
    public static final ResourceDefinitionContext COMMUNITIES = CustomResources.metallb("Community", "communities");
    public static final ResourceDefinitionContext BFD_PROFILES = CustomResources.metallb("BFDProfile", "bfdprofiles");

    /** Every configuration kind, those that name others first: the order to delete them in. */
    public static final List<ResourceDefinitionContext> KINDS =
            List.of(L2_ADVERTISEMENTS, BGP_ADVERTISEMENTS, IP_ADDRESS_POOLS, BGP_PEERS, COMMUNITIES, BFD_PROFILES);

    /** The configuration kind called {@code kind} (e.g. {@code BGPPeer}), if it is one. */
    public static Optional<ResourceDefinitionContext> ofKind(String kind) {
        return KINDS.stream().filter(k -> k.getKind().equals(kind)).findFirst();
    }

    /** The BGP objects as read from the API (from informers' stores or a list). */
    public record BgpObjects(
            Collection<GenericKubernetesResource> peers,
            Collection<GenericKubernetesResource> advertisements,
            Collection<GenericKubernetesResource> communities,
            Collection<GenericKubernetesResource> bfdProfiles) {

        public static final BgpObjects NONE = new BgpObjects(List.of(), List.of(), List.of(), List.of());
    }

    /** Layer-2 objects only: for callers that judge pools (the installer). */
    public static ConfigSources sources(
            Collection<GenericKubernetesResource> pools,
            Collection<GenericKubernetesResource> l2Advertisements,
            Optional<ConfigMap> configMap) {
        return sources(pools, l2Advertisements, configMap, BgpObjects.NONE);
    }

    public static ConfigSources sources(
            Collection<GenericKubernetesResource> pools,
            Collection<GenericKubernetesResource> l2Advertisements,
            Optional<ConfigMap> configMap,
            BgpObjects bgp) {
        return new ConfigSources(
                raw(pools),
                raw(l2Advertisements),
                configMap
                        .map(cm -> List.of(new ConfigSources.RawConfigMap(
                                cm.getMetadata().getNamespace(),
                                cm.getMetadata().getName(),
                                cm.getData() == null ? null : cm.getData().get(CONFIG_MAP_KEY),
                                cm.getMetadata().getCreationTimestamp())))
                        .orElse(List.of()),
                raw(bgp.peers()),
                raw(bgp.advertisements()),
                raw(bgp.communities()),
                raw(bgp.bfdProfiles()));
    }

    private static List<ConfigSources.RawObject> raw(Collection<GenericKubernetesResource> resources) {
        return resources.stream()
                .sorted(Comparator.comparing(
                        (GenericKubernetesResource r) -> r.getMetadata().getName()))
                .map(r -> new ConfigSources.RawObject(
                        r.getMetadata().getNamespace(),
                        r.getMetadata().getName(),
                        r.getMetadata().getLabels() == null
                                ? Map.of()
                                : r.getMetadata().getLabels(),
                        r.getAdditionalProperties().get("spec"),
                        r.getMetadata().getCreationTimestamp()))
                .toList();
    }
}

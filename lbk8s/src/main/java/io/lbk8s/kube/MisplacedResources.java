package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.config.MisplacedConfig.Found;
import io.lbk8s.config.MisplacedConfig.Kind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where configuration lbk8s does not read is looked for: the metallb.io resources in every namespace, and the
 * ConfigMaps named {@code config} (MetalLB's legacy one) in every namespace, selected by name so that neither the
 * controller's watch nor its RBAC reaches any other ConfigMap.
 */
public final class MisplacedResources {
    private MisplacedResources() {}

    /** The metallb.io kinds lbk8s reads in its own namespace only, and where the API serves each. */
    public static final Map<Kind, ResourceDefinitionContext> RESOURCES = resources();

    private static Map<Kind, ResourceDefinitionContext> resources() {
        Map<Kind, ResourceDefinitionContext> resources = new LinkedHashMap<>();
        resources.put(Kind.IPAddressPool, ConfigResources.IP_ADDRESS_POOLS);
        resources.put(Kind.L2Advertisement, ConfigResources.L2_ADVERTISEMENTS);
        resources.put(Kind.BGPPeer, ConfigResources.BGP_PEERS);
        resources.put(Kind.BGPAdvertisement, ConfigResources.BGP_ADVERTISEMENTS);
        resources.put(Kind.Community, ConfigResources.COMMUNITIES);
        resources.put(Kind.BFDProfile, ConfigResources.BFD_PROFILES);
        return java.util.Collections.unmodifiableMap(resources);
    }

    public static FilterWatchListDeletable<ConfigMap, ConfigMapList, Resource<ConfigMap>> legacyConfigMaps(
            KubernetesClient client) {
        return client.configMaps().inAnyNamespace().withField("metadata.name", MisplacedConfig.LEGACY_CONFIG_MAP_NAME);
    }

    /**
     * The identities of the objects: every metallb.io object given, by kind, and the ConfigMaps that hold MetalLB's
     * legacy format.
     */
    public static List<Found> found(
            Map<Kind, ? extends Collection<GenericKubernetesResource>> resources, Collection<ConfigMap> configMaps) {
        List<Found> found = new ArrayList<>();
        resources.forEach((kind, objects) -> objects.forEach(o -> found.add(
                new Found(kind, o.getMetadata().getNamespace(), o.getMetadata().getName()))));
        configMaps.stream()
                .filter(c -> MisplacedConfig.isLegacyConfigMap(c.getData()))
                .forEach(c -> found.add(new Found(
                        Kind.LegacyConfigMap,
                        c.getMetadata().getNamespace(),
                        c.getMetadata().getName())));
        return found;
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.config.MisplacedConfig.Found;
import io.lbk8s.config.MisplacedConfig.Kind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Where configuration lbk8s does not read is looked for: the metallb.io resources in every namespace, and the
 * ConfigMaps named {@code config} (MetalLB's legacy one) in every namespace, selected by name so that neither the
 * controller's watch nor its RBAC reaches any other ConfigMap.
 */
public final class MisplacedResources {
    private MisplacedResources() {}

    public static FilterWatchListDeletable<ConfigMap, ConfigMapList, Resource<ConfigMap>> legacyConfigMaps(
            KubernetesClient client) {
        return client.configMaps().inAnyNamespace().withField("metadata.name", MisplacedConfig.LEGACY_CONFIG_MAP_NAME);
    }

    /** The identities of the objects: every pool and L2Advertisement, and the ConfigMaps that hold MetalLB's legacy format. */
    public static List<Found> found(
            Collection<GenericKubernetesResource> pools,
            Collection<GenericKubernetesResource> l2Advertisements,
            Collection<ConfigMap> configMaps) {
        List<Found> found = new ArrayList<>();
        pools.forEach(p -> found.add(new Found(
                Kind.IPAddressPool,
                p.getMetadata().getNamespace(),
                p.getMetadata().getName())));
        l2Advertisements.forEach(l -> found.add(new Found(
                Kind.L2Advertisement,
                l.getMetadata().getNamespace(),
                l.getMetadata().getName())));
        configMaps.stream()
                .filter(c -> MisplacedConfig.isLegacyConfigMap(c.getData()))
                .forEach(c -> found.add(new Found(
                        Kind.LegacyConfigMap,
                        c.getMetadata().getNamespace(),
                        c.getMetadata().getName())));
        return found;
    }
}

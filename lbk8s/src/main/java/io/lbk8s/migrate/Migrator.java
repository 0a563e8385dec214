package io.lbk8s.migrate;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.ConfigSources;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.install.InstallProblem;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.CustomResources;
import io.lbk8s.kube.MisplacedResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/** {@code lbk8s migrate}'s shell: reads what {@link MigrationPlan} needs from the cluster, and creates what it decided. */
public final class Migrator {
    private final KubernetesClient client;

    public Migrator(KubernetesClient client) {
        this.client = client;
    }

    /**
     * @param extraConfigMaps legacy ConfigMaps under another name than {@code config} (MetalLB's Helm chart named
     *                        it after the release), as NAMESPACE/NAME
     */
    public MigrationPlan plan(String target, Set<String> fromNamespaces, List<String> extraConfigMaps) {
        List<ConfigMap> legacy = new ArrayList<>(MisplacedResources.legacyConfigMaps(client).list().getItems().stream()
                .filter(c -> MisplacedConfig.isLegacyConfigMap(c.getData()))
                .toList());
        for (String ref : extraConfigMaps) {
            String[] parts = ref.split("/", 2);
            if (parts.length != 2) {
                throw new InstallProblem("--configmap " + ref + " is not NAMESPACE/NAME");
            }
            ConfigMap found =
                    client.configMaps().inNamespace(parts[0]).withName(parts[1]).get();
            if (found == null) {
                throw new InstallProblem("ConfigMap " + ref + " not found");
            }
            if (!MisplacedConfig.isLegacyConfigMap(found.getData())) {
                throw new InstallProblem("ConfigMap " + ref + " is not MetalLB's legacy configuration (no key "
                        + MisplacedConfig.LEGACY_CONFIG_MAP_KEY + " with address-pools)");
            }
            legacy.removeIf(c -> c.getMetadata().getNamespace().equals(parts[0])
                    && c.getMetadata().getName().equals(parts[1]));
            legacy.add(found);
        }
        ConfigSources inCluster = ConfigResources.sources(
                list(ConfigResources.IP_ADDRESS_POOLS),
                list(ConfigResources.L2_ADVERTISEMENTS),
                Optional.ofNullable(client.configMaps()
                        .inNamespace(target)
                        .withName(ConfigResources.CONFIG_MAP_NAME)
                        .get()),
                new ConfigResources.BgpObjects(
                        list(ConfigResources.BGP_PEERS),
                        list(ConfigResources.BGP_ADVERTISEMENTS),
                        list(ConfigResources.COMMUNITIES),
                        list(ConfigResources.BFD_PROFILES)));
        List<ConfigSources.RawConfigMap> legacyTexts = legacy.stream()
                .map(c -> new ConfigSources.RawConfigMap(
                        c.getMetadata().getNamespace(),
                        c.getMetadata().getName(),
                        c.getData().get(MisplacedConfig.LEGACY_CONFIG_MAP_KEY)))
                .toList();
        return MigrationPlan.of(
                target,
                fromNamespaces,
                new MigrationPlan.Found(
                        Map.of(
                                ConfigOrigin.Kind.IPAddressPool, inCluster.ipAddressPools(),
                                ConfigOrigin.Kind.L2Advertisement, inCluster.l2Advertisements(),
                                ConfigOrigin.Kind.BGPPeer, inCluster.bgpPeers(),
                                ConfigOrigin.Kind.BGPAdvertisement, inCluster.bgpAdvertisements(),
                                ConfigOrigin.Kind.Community, inCluster.communities(),
                                ConfigOrigin.Kind.BFDProfile, inCluster.bfdProfiles()),
                        legacyTexts,
                        inCluster.configMaps().stream().findFirst()));
    }

    private List<GenericKubernetesResource> list(ResourceDefinitionContext context) {
        // no CRD, so none of these anywhere (a cluster with only the legacy ConfigMap)
        return CustomResources.listEverywhereIfInstalled(client, context).orElse(List.of());
    }

    /** Where the API serves each kind migrate copies (a BGPPeer as v1beta2, as it was read). */
    private static ResourceDefinitionContext context(ConfigOrigin.Kind kind) {
        return switch (kind) {
            case IPAddressPool -> ConfigResources.IP_ADDRESS_POOLS;
            case L2Advertisement -> ConfigResources.L2_ADVERTISEMENTS;
            case BGPPeer -> ConfigResources.BGP_PEERS;
            case BGPAdvertisement -> ConfigResources.BGP_ADVERTISEMENTS;
            case Community -> ConfigResources.COMMUNITIES;
            case BFDProfile -> ConfigResources.BFD_PROFILES;
            case ConfigMap -> throw new IllegalArgumentException("not a metallb.io kind: " + kind);
        };
    }

    public static GenericKubernetesResource object(String target, Manifest m) {
        ResourceDefinitionContext context = context(m.kind());
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(context.getGroup() + "/" + context.getVersion())
                .withKind(m.kind().name())
                .withNewMetadata()
                .withName(m.name())
                .withNamespace(target)
                .withLabels(m.labels().isEmpty() ? null : m.labels())
                .endMetadata()
                .addToAdditionalProperties("spec", m.spec())
                .build();
    }

    /** Creates each object in {@code target}, saying so for each; stops at the first failure. */
    public void create(String target, List<Manifest> manifests, Consumer<String> say) {
        if (client.namespaces().withName(target).get() == null) {
            throw new InstallProblem("namespace " + target + " does not exist: run lbk8s install first (or pass -n)");
        }
        for (Manifest m : manifests) {
            ResourceDefinitionContext context = context(m.kind());
            try {
                client.genericKubernetesResources(context)
                        .inNamespace(target)
                        .resource(object(target, m))
                        .create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    throw new InstallProblem("the metallb.io CRDs are not installed (" + context.getPlural()
                            + " not found): " + "run lbk8s install first");
                }
                throw e;
            }
            say.accept(m.kind().name().toLowerCase(java.util.Locale.ROOT) + ".metallb.io/" + m.name() + " created in "
                    + target + " (from " + m.from() + ")");
        }
    }
}

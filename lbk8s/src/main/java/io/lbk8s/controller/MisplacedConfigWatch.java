package io.lbk8s.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.config.MisplacedConfig.Found;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.MisplacedResources;
import io.lbk8s.kube.Watches;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches, cluster-wide, the configuration the controller does not read ({@link MisplacedConfig}), so that a Service
 * left without an address for want of a pool is told where the pools it was probably meant to get are. Advisory:
 * without the CRDs or the RBAC to list them it says so once and the controller works as before.
 */
final class MisplacedConfigWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MisplacedConfigWatch.class);

    private final KubernetesClient client;
    private final String namespace;
    private final EventRecorder events;
    private final Runnable onChange;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> pools = Optional.empty();
    private Optional<SharedIndexInformer<GenericKubernetesResource>> l2Advertisements = Optional.empty();
    private Optional<SharedIndexInformer<ConfigMap>> configMaps = Optional.empty();
    // Owned by the reconcile thread: the objects already logged (their Events are deduplicated by the recorder).
    private final Set<Found> logged = new HashSet<>();

    MisplacedConfigWatch(KubernetesClient client, String namespace, EventRecorder events, Runnable onChange) {
        this.client = client;
        this.namespace = namespace;
        this.events = events;
        this.onChange = onChange;
    }

    void start() {
        pools = watch(
                "ipaddresspools.metallb.io in all namespaces",
                client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                        .inAnyNamespace());
        l2Advertisements = watch(
                "l2advertisements.metallb.io in all namespaces",
                client.genericKubernetesResources(ConfigResources.L2_ADVERTISEMENTS)
                        .inAnyNamespace());
        configMaps = watch(
                "ConfigMaps named " + MisplacedConfig.LEGACY_CONFIG_MAP_NAME,
                MisplacedResources.legacyConfigMaps(client));
    }

    private <T> Optional<SharedIndexInformer<T>> watch(String what, Informable<T> source) {
        try {
            return Optional.of(Watches.resilient(what, source, Informers.onAnyChange(o -> onChange.run())));
        } catch (KubernetesClientException e) {
            log.warn(
                    "cannot watch {} ({}); pending Services will not be told of configuration lbk8s does not read",
                    what,
                    e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The allocator's "no address pool is configured", with where lbk8s reads and what it found elsewhere; each
     * object found elsewhere gets a Warning (once) and a log line.
     */
    String noPools(String message) {
        List<Found> misplaced = MisplacedConfig.misplaced(
                namespace, MisplacedResources.found(list(pools), list(l2Advertisements), list(configMaps)));
        for (Found found : misplaced) {
            String notRead = MisplacedConfig.notRead(namespace, found);
            object(found).ifPresent(o -> events.record(o, EventRecorder.Type.Warning, "ConfigurationNotRead", notRead));
            if (logged.add(found)) {
                log.warn("{}: {}", found, notRead);
            }
        }
        return MisplacedConfig.noPools(message, namespace, misplaced);
    }

    private static <T> List<T> list(Optional<SharedIndexInformer<T>> informer) {
        return informer.map(i -> i.getStore().list()).orElse(List.of());
    }

    private Optional<HasMetadata> object(Found found) {
        String key = found.namespace() + "/" + found.name();
        return switch (found.kind()) {
            case IPAddressPool -> pools.map(i -> i.getStore().getByKey(key));
            case L2Advertisement -> l2Advertisements.map(i -> i.getStore().getByKey(key));
            case LegacyConfigMap -> configMaps.map(i -> i.getStore().getByKey(key));
        };
    }

    @Override
    public void close() {
        pools.ifPresent(SharedIndexInformer::close);
        l2Advertisements.ifPresent(SharedIndexInformer::close);
        configMaps.ifPresent(SharedIndexInformer::close);
    }
}

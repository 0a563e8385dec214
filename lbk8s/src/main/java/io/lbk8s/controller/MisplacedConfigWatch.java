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
import io.lbk8s.config.MisplacedConfig.Kind;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.MisplacedResources;
import io.lbk8s.kube.Watches;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches, cluster-wide, the configuration the controller does not read ({@link MisplacedConfig}), so that a Service
 * left without an address for want of a pool is told where the pools it was probably meant to get are, and a BGP
 * object (BGPPeer, BGPAdvertisement, Community, BFDProfile) in another namespace is told at once. Advisory:
 * without the CRDs or the RBAC to list them it says so once and the controller works as before.
 */
final class MisplacedConfigWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MisplacedConfigWatch.class);

    private final KubernetesClient client;
    private final String namespace;
    private final EventRecorder events;
    private final Runnable onChange;
    /** By kind, those whose watch started (none without the CRD or the RBAC). */
    private final Map<Kind, SharedIndexInformer<GenericKubernetesResource>> resources = new EnumMap<>(Kind.class);

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
        MisplacedResources.RESOURCES.forEach((kind, context) -> watch(
                        context.getPlural() + "." + context.getGroup() + " in all namespaces",
                        client.genericKubernetesResources(context).inAnyNamespace())
                .ifPresent(informer -> resources.put(kind, informer)));
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
        List<Found> misplaced = misplaced();
        misplaced.forEach(this::tell);
        return MisplacedConfig.noPools(message, namespace, misplaced);
    }

    /**
     * Tells each misplaced object whose kind no Service's trouble would name (the BGP kinds) that lbk8s does not read
     * it: called whenever the objects change.
     */
    void tellSilent() {
        misplaced().stream().filter(f -> f.kind().silentWhenMisplaced()).forEach(this::tell);
    }

    private List<Found> misplaced() {
        Map<Kind, List<GenericKubernetesResource>> objects = new EnumMap<>(Kind.class);
        resources.forEach(
                (kind, informer) -> objects.put(kind, informer.getStore().list()));
        return MisplacedConfig.misplaced(
                namespace,
                MisplacedResources.found(
                        objects, configMaps.map(i -> i.getStore().list()).orElse(List.of())));
    }

    /** A Warning on the object (the recorder keeps it to one), and a log line once. */
    private void tell(Found found) {
        String notRead = MisplacedConfig.notRead(namespace, found);
        object(found).ifPresent(o -> events.record(o, EventRecorder.Type.Warning, "ConfigurationNotRead", notRead));
        if (logged.add(found)) {
            log.warn("{}: {}", found, notRead);
        }
    }

    private Optional<HasMetadata> object(Found found) {
        String key = found.namespace() + "/" + found.name();
        return found.kind() == Kind.LegacyConfigMap
                ? configMaps.map(i -> i.getStore().getByKey(key))
                : Optional.ofNullable(resources.get(found.kind()))
                        .map(i -> i.getStore().getByKey(key));
    }

    @Override
    public void close() {
        resources.values().forEach(SharedIndexInformer::close);
        configMaps.ifPresent(SharedIndexInformer::close);
    }
}

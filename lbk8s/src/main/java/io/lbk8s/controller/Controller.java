package io.lbk8s.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AcceptedConfig;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.health.HealthServer.Readiness;
import io.lbk8s.ipam.Allocator;
import io.lbk8s.ipam.Assignment;
import io.lbk8s.ipam.FailureReason;
import io.lbk8s.ipam.Outcome;
import io.lbk8s.ipam.ServiceKey;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.kube.Watches;
import io.lbk8s.kube.WorkQueue;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's imperative shell: informers feed one work queue; a single thread reconciles, asks the pure
 * {@link Allocator} and {@link ConfigParser} what to do, and writes Services' status, annotations and Events.
 */
public final class Controller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Controller.class);
    private static final String COMPONENT = "lbk8s-controller";

    private sealed interface Work {
        record ConfigChanged() implements Work {}

        record ServiceChanged(ServiceKey key) implements Work {}

        record NamespaceChanged(String name) implements Work {}

        record MisplacedConfigChanged() implements Work {}
    }

    private static final Work CONFIG_CHANGED = new Work.ConfigChanged();

    private final KubernetesClient client;
    private final ControllerSettings settings;
    private final EventRecorder events;
    private final ControllerMetrics metrics;
    private final ConfigurationStates configurationState;
    private final WorkQueue<Work> queue = new WorkQueue<>();
    private final Watches watches = new Watches();
    private final ConfigSettling settling = new ConfigSettling(() -> queue.add(CONFIG_CHANGED));
    private final MisplacedConfigWatch misplaced;

    private SharedIndexInformer<Service> services;
    private SharedIndexInformer<Namespace> namespaces;
    private SharedIndexInformer<ConfigMap> configMaps;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> pools = Optional.empty();
    private Optional<SharedIndexInformer<GenericKubernetesResource>> l2Advertisements = Optional.empty();

    // Owned by the reconcile thread.
    private Allocator allocator;
    private AcceptedConfig accepted = AcceptedConfig.NONE;
    private Set<ConfigOrigin> refusedPools = Set.of(); // refused objects that define pools, with no version in use
    private final Set<ServiceKey> pending = new HashSet<>();
    private final SaidWarnings saidWarnings = new SaidWarnings();
    private long lastMetricsUpdate;

    private volatile boolean synced;
    private volatile boolean configLoaded;
    private volatile String configState = "no configuration read yet";
    private volatile Thread worker; // the reconcile thread while leading

    public Controller(KubernetesClient client, ControllerSettings settings, MeterRegistry registry) {
        this.client = client;
        this.settings = settings;
        this.events = new EventRecorder(client, COMPONENT, System.getenv().getOrDefault("NODE_NAME", "controller"));
        this.metrics = new ControllerMetrics(registry);
        this.configurationState = new ConfigurationStates(client, settings.namespace(), ConfigurationStates.CONTROLLER);
        this.misplaced = new MisplacedConfigWatch(client, settings.namespace(), events,
                () -> queue.add(new Work.MisplacedConfigChanged()));
    }

    /**
     * Starts the informers and waits for their first list. A standby replica stops here: its caches stay warm, so
     * that it reconciles at once when it is elected ({@link #lead}).
     */
    public void start() {
        String ns = settings.namespace();
        namespaces = watches.inform("namespaces", client.namespaces(),
                handler(n -> queue.add(new Work.NamespaceChanged(n.getMetadata().getName()))));
        configMaps = watches.inform("the configuration ConfigMap", client.configMaps().inNamespace(ns)
                .withName(ConfigResources.CONFIG_MAP_NAME), handler(c -> settling.changed()));
        pools = customResources(ConfigResources.IP_ADDRESS_POOLS);
        l2Advertisements = customResources(ConfigResources.L2_ADVERTISEMENTS);
        services = watches.inform("services", client.services().inAnyNamespace(),
                handler(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s)))));
        misplaced.start();
        synced = true;
        log.info("informers synced: {} services, config namespace {}", services.getStore().list().size(), ns);
    }

    /**
     * Starts reconciling, from nothing but what the API holds: the record of accepted objects, the Services' status
     * and the claims; what a previous term of this replica knew is not trusted (another leader may have written since).
     */
    public synchronized void lead() {
        if (worker != null) {
            return;
        }
        allocator = null;
        accepted = configurationState.accepted().map(AcceptedConfig::of).orElse(AcceptedConfig.NONE);
        refusedPools = Set.of();
        pending.clear();
        queue.add(CONFIG_CHANGED);
        worker = Thread.ofVirtual().name("reconcile").unstarted(this::runQueue); // set before it runs: it checks
        worker.start();
        log.info("leading: reconciling every Service");
    }

    /**
     * Stops reconciling and waits (up to 5 s) for the reconcile in progress to end, so that nothing is written
     * after another replica may have started leading; the informers keep running.
     */
    public synchronized void standBy() {
        Thread running = worker;
        if (running == null) {
            return;
        }
        worker = null;
        running.interrupt();
        try {
            running.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        configLoaded = false;
        log.info("standing by: no longer reconciling");
    }

    public boolean leading() {
        return worker != null;
    }

    private Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(ResourceDefinitionContext context) {
        return watches.customResources(client, context, settings.namespace(), handler(r -> settling.changed()));
    }

    private static <T> ResourceEventHandler<T> handler(Consumer<T> onAnyChange) {
        return Informers.onAnyChange(onAnyChange);
    }

    public Readiness readiness() {
        if (!synced) {
            return new Readiness(false, "informers not synced");
        }
        Optional<String> down = watches.down();
        if (down.isPresent()) {
            return new Readiness(false, "not watching " + down.get() + ": listing and watching again");
        }
        if (!leading()) {
            return new Readiness(true, "standby: caches in sync, ready to lead");
        }
        if (!configLoaded) {
            return new Readiness(false, "no valid configuration loaded: " + configState);
        }
        return new Readiness(true, "ready: " + configState);
    }

    private void runQueue() {
        while (worker == Thread.currentThread() && !Thread.currentThread().isInterrupted()) {
            try {
                Optional<Work> next = queue.take(1, TimeUnit.SECONDS);
                next.ifPresent(this::reconcileSafely);
                long now = System.nanoTime();
                if (allocator != null && (queue.size() == 0 || now - lastMetricsUpdate > 500_000_000L)) {
                    metrics.usage(allocator.usage(), allocator.assignedCount());
                    lastMetricsUpdate = now;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void reconcileSafely(Work work) {
        try {
            switch (work) {
                case Work.ConfigChanged _ -> reconcileConfig();
                case Work.ServiceChanged(ServiceKey key) -> reconcileService(key);
                case Work.NamespaceChanged(String name) -> services.getStore().list().stream()
                        .filter(s -> name.equals(s.getMetadata().getNamespace()))
                        .forEach(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s))));
                case Work.MisplacedConfigChanged _ -> retryPending(); // their AllocationFailed names what is where
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                // Our cache is behind a write (often our own); the newer version is on its way and is reconciled again.
                log.debug("reconcile of {} met a newer version, reconciling again", work);
                queue.add(work);
                return;
            }
            log.warn("reconcile of {} failed, will retry: {}", work, e.getMessage());
            retryLater(work);
        } catch (RuntimeException e) {
            log.error("reconcile of {} failed unexpectedly, will retry", work, e);
            retryLater(work);
        }
    }

    private void retryLater(Work work) {
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(500);
                if (leading()) {
                    queue.add(work);
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        });
    }

    // ---- configuration ----

    private void reconcileConfig() {
        long settled = settling.applying();
        AcceptedConfig.Outcome outcome = accepted.accept(ConfigResources.sources(
                pools.map(i -> i.getStore().list()).orElse(List.of()),
                l2Advertisements.map(i -> i.getStore().list()).orElse(List.of()),
                Optional.ofNullable(configMaps.getStore().getByKey(settings.namespace() + "/" + ConfigResources.CONFIG_MAP_NAME))));
        accepted = outcome.next();
        ConfigResult result = outcome.result();
        for (ConfigProblem problem : result.problems()) {
            boolean error = problem.severity() == ConfigProblem.Severity.ERROR;
            String message = problem.message() + (!error ? "" : outcome.kept().contains(problem.origin())
                    ? "; lbk8s keeps using the version of this object it last accepted"
                    : "; lbk8s does not use this object until it is fixed");
            if (error) {
                log.error("config error: {}", problem);
            } else {
                log.warn("config warning: {}", problem);
            }
            objectOf(problem.origin()).ifPresent(object -> events.record(object, EventRecorder.Type.Warning,
                    error ? "InvalidConfiguration" : "ConfigurationWarning", message));
        }
        refusedPools = outcome.unused().stream().filter(o -> o.kind() != ConfigOrigin.Kind.L2Advertisement)
                .collect(Collectors.toUnmodifiableSet());
        metrics.configValid(result.valid());
        List<String> errorMessages = result.problems().stream()
                .filter(p -> p.severity() == ConfigProblem.Severity.ERROR).map(ConfigProblem::toString).toList();
        configurationState.report(result.valid(), String.join("; ", errorMessages), accepted.sources());
        Config config = result.config();
        String refused = outcome.kept().size() + outcome.unused().size() == 0 ? ""
                : "; refused: " + describe(outcome.unused()) + (outcome.kept().isEmpty() ? ""
                        : " (kept at their last accepted version: " + describe(outcome.kept()) + ")");
        configState = "configuration " + (result.valid() ? "valid" : "in use") + ": " + config.pools().size() + " pool(s), "
                + config.l2Advertisements().size() + " L2Advertisement(s)" + refused;
        if (result.valid()) {
            log.info("{}", configState);
        } else {
            log.error("{}", configState);
        }
        configLoaded = !config.pools().isEmpty() || outcome.unused().isEmpty();
        if (!configLoaded) {
            configState = "every configuration object is refused: " + describe(outcome.unused());
        }
        if (allocator == null) {
            allocator = new Allocator(config);
        } else {
            for (ServiceKey released : allocator.reconfigure(config)) {
                log.info("{} lost its addresses: the configuration no longer contains them", released);
                Optional.ofNullable(serviceByKey(released)).ifPresent(s -> events.record(s, EventRecorder.Type.Normal,
                        "ClearAssignment", "addresses cleared: their pool was removed or no longer contains them"));
            }
        }
        restoreFromStatus();
        settling.applied(settled);
        services.getStore().list().forEach(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s))));
    }

    private static String describe(Set<ConfigOrigin> origins) {
        return origins.stream().map(ConfigOrigin::toString).sorted().collect(Collectors.joining(", "));
    }

    /**
     * Before any allocation from a new configuration, every served Service claims the addresses in its status, so
     * that a restart (or a Service reconciled early, or a pool that comes back) can never take an address another
     * Service already shows to its users.
     */
    private void restoreFromStatus() {
        int restored = 0;
        for (Service service : services.getStore().list()) {
            ServiceView view = ServiceMapping.view(service);
            if (view.statusIps().isEmpty() || allocator.assignmentOf(view.key()).isPresent()) {
                continue;
            }
            if (restore(view).isPresent()) {
                restored++;
            }
        }
        if (restored > 0) {
            log.info("restored {} assignment(s) from Services' status", restored);
        }
    }

    /** Claims the addresses a Service shows; a Service with an invalid request keeps them too. */
    private Optional<Assignment> restore(ServiceView view) {
        Map<String, String> labels = namespaceLabels(view.key().namespace());
        Optional<io.lbk8s.ipam.AllocationRequest> request = switch (ServiceRequests.decide(view, labels, settings.lbClass())) {
            case ServiceRequests.Decision.Request(var asked, var _) -> Optional.of(asked);
            case ServiceRequests.Decision.Invalid _ -> ServiceRequests.withoutItsRequests(view, labels, settings.lbClass());
            case ServiceRequests.Decision.NotServed _, ServiceRequests.Decision.OtherClass _ -> Optional.empty();
        };
        return request.flatMap(r -> allocator.restore(r, view.statusIps()));
    }

    private Optional<HasMetadata> objectOf(ConfigOrigin origin) {
        String key = origin.namespace() + "/" + origin.name();
        return switch (origin.kind()) {
            case IPAddressPool -> pools.map(i -> i.getStore().getByKey(key));
            case L2Advertisement -> l2Advertisements.map(i -> i.getStore().getByKey(key));
            case ConfigMap -> Optional.ofNullable(configMaps.getStore().getByKey(key));
        };
    }

    // ---- services ----

    private Service serviceByKey(ServiceKey key) {
        return services.getStore().getByKey(key.namespace() + "/" + key.name());
    }

    private Map<String, String> namespaceLabels(String namespace) {
        Namespace ns = namespaces.getStore().getByKey(namespace);
        return ns == null || ns.getMetadata().getLabels() == null ? Map.of() : ns.getMetadata().getLabels();
    }

    private void reconcileService(ServiceKey key) {
        if (allocator == null) {
            return; // no valid configuration yet: touch nothing, the Service is reconciled once one arrives
        }
        Service service = serviceByKey(key);
        if (service == null) {
            if (release(key)) {
                log.info("{} deleted; its addresses are free", key);
            }
            saidWarnings.forget(key);
            events.forget("Service", key.namespace(), key.name());
            return;
        }
        ServiceView view = ServiceMapping.view(service);
        var decision = ServiceRequests.decide(view, namespaceLabels(key.namespace()), settings.lbClass());
        switch (decision) {
            case ServiceRequests.Decision.NotServed(String why) -> stopServing(service, view, why);
            case ServiceRequests.Decision.OtherClass(String why) -> forget(view.key(), why);
            case ServiceRequests.Decision.Invalid(String message, List<ServiceRequests.Warning> warnings) -> {
                warn(service, warnings);
                metrics.failure("INVALID_REQUEST");
                if (allocator.assignmentOf(key).isEmpty() && !view.statusIps().isEmpty()) {
                    restore(view);
                }
                String kept = allocator.assignmentOf(key).map(a -> "; keeping its current addresses " + a.ips()).orElse("");
                events.record(service, EventRecorder.Type.Warning, "AllocationFailed", message + kept);
                log.warn("{}: {}{}", key, message, kept);
                if (allocator.assignmentOf(key).isEmpty()) {
                    pending.add(key);
                }
            }
            case ServiceRequests.Decision.Request(var request, List<ServiceRequests.Warning> warnings) -> {
                warn(service, warnings);
                if (allocator.assignmentOf(key).isEmpty() && !view.statusIps().isEmpty()) {
                    allocator.restore(request, view.statusIps());
                }
                Optional<Assignment> before = allocator.assignmentOf(key);
                if (before.isEmpty() && !view.statusIps().isEmpty() && !refusedPools.isEmpty()) {
                    keepWhileRefused(service, view);
                    return;
                }
                if (before.isEmpty() && settling.unsettled()) {
                    pending.add(key); // given its address once the configuration being applied has settled
                    return;
                }
                switch (allocator.assign(request)) {
                    case Outcome.Assigned(Assignment assignment) -> {
                        pending.remove(key);
                        if (before.isPresent() && !before.get().equals(assignment)) {
                            retryPending();
                        }
                        publish(service, view, assignment);
                    }
                    case Outcome.Failed(var reason, String failure) -> {
                        String message = reason == FailureReason.NO_POOLS ? misplaced.noPools(failure) : failure;
                        metrics.failure(reason.name());
                        pending.add(key);
                        events.record(service, EventRecorder.Type.Warning, "AllocationFailed", message);
                        log.warn("{}: no address: {}", key, message);
                        if (before.isPresent()) {
                            retryPending();
                        }
                        clearPublished(service, view, "AllocationFailed");
                    }
                }
            }
        }
    }

    /**
     * A Service shows addresses no pool in use holds, while objects that define pools are refused with no version in
     * use (no record survived): they may hold its addresses, so it keeps them and is never moved meanwhile.
     */
    private void keepWhileRefused(Service service, ServiceView view) {
        pending.add(view.key());
        String message = "keeping its addresses " + view.statusIps() + ": no pool in use holds them, and the refused "
                + describe(refusedPools) + " may (see its Events); they stay until it is fixed";
        events.record(service, EventRecorder.Type.Warning, "AllocationFailed", message);
        log.warn("{}: {}", view.key(), message);
    }

    /**
     * Each warning once per Service: the recorder remembers only the last message per reason, so two warnings of one
     * reason would otherwise each be written again on every reconcile.
     */
    private void warn(Service service, List<ServiceRequests.Warning> warnings) {
        saidWarnings.unsaid(ServiceMapping.keyOf(service), service.getMetadata().getUid(), warnings).forEach(w ->
                events.record(service, EventRecorder.Type.Warning, w.reason().name(), w.message()));
    }

    private void retryPending() {
        pending.forEach(k -> queue.add(new Work.ServiceChanged(k)));
    }

    /** Another controller's Service: what lbk8s held for it is free again, and nothing is written to it. */
    private void forget(ServiceKey key, String why) {
        if (release(key)) {
            log.info("{}: {}; released its addresses here and leaves the Service to its controller", key, why);
        }
    }

    /**
     * The Service waits for nothing any more, and what it held is free for those that wait (retried); whether it
     * held anything.
     */
    private boolean release(ServiceKey key) {
        pending.remove(key);
        if (allocator.assignmentOf(key).isEmpty()) {
            return false;
        }
        allocator.release(key);
        retryPending();
        return true;
    }

    private void stopServing(Service service, ServiceView view, String why) {
        ServiceKey key = view.key();
        boolean held = release(key);
        if (held || view.annotations().containsKey(Annotations.ALLOCATED_FROM_POOL)) {
            log.info("{} no longer served ({}); clearing its addresses", key, why);
            events.record(service, EventRecorder.Type.Normal, "ClearAssignment", "addresses cleared: " + why);
            clearPublished(service, view, "ClearAssignment");
        }
    }

    /** Writes the pool annotation and the status, each only when it differs from what the Service shows. */
    private void publish(Service service, ServiceView view, Assignment assignment) {
        List<String> wanted = assignment.ips().stream().map(IpAddress::toString).toList();
        List<String> shown = view.statusIps().stream().map(IpAddress::toString).toList();
        boolean statusChanges = !wanted.equals(shown) || hasHostnames(service);
        if (statusChanges) {
            // The status first, with the resourceVersion we decided on: a stale cache gets a 409, not a lost write.
            writeStatus(service, wanted);
        }
        if (!assignment.pool().equals(view.annotations().get(Annotations.ALLOCATED_FROM_POOL))) {
            patchAnnotation(service, assignment.pool());
        }
        if (statusChanges) {
            String ips = String.join("\", \"", wanted);
            events.record(service, EventRecorder.Type.Normal, "IPAllocated",
                    "Assigned IP [\"" + ips + "\"] from pool " + assignment.pool());
            log.info("{}: assigned {} from pool {}", view.key(), wanted, assignment.pool());
        }
    }

    private static boolean hasHostnames(Service service) {
        return service.getStatus() != null && service.getStatus().getLoadBalancer() != null
                && service.getStatus().getLoadBalancer().getIngress() != null
                && service.getStatus().getLoadBalancer().getIngress().stream().anyMatch(i -> i.getIp() == null);
    }

    private void clearPublished(Service service, ServiceView view, String why) {
        if (!view.statusIps().isEmpty()) {
            writeStatus(service, List.of());
            log.info("{}: status cleared ({})", view.key(), why);
        }
        if (view.annotations().containsKey(Annotations.ALLOCATED_FROM_POOL)) {
            patchAnnotation(service, null);
        }
    }

    private void patchAnnotation(Service service, String pool) {
        String value = pool == null ? "null" : "\"" + pool.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        String patch = "{\"metadata\":{\"annotations\":{\"" + Annotations.ALLOCATED_FROM_POOL + "\":" + value + "}}}";
        client.services().inNamespace(service.getMetadata().getNamespace())
                .withName(service.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    private void writeStatus(Service service, List<String> ips) {
        List<LoadBalancerIngress> ingress = ips.stream().map(ip -> {
            var entry = new LoadBalancerIngress();
            entry.setIp(ip);
            entry.setIpMode("VIP");
            return entry;
        }).toList();
        Service updated = new ServiceBuilder(service)
                .editOrNewStatus().withNewLoadBalancer().withIngress(ingress).endLoadBalancer().endStatus()
                .build();
        client.services().inNamespace(service.getMetadata().getNamespace()).resource(updated).updateStatus();
    }

    @Override
    public void close() {
        standBy();
        watches.close();
        misplaced.close();
        settling.close();
        events.close();
    }
}

package io.lbk8s.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AcceptedConfig;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.conflict.ConflictExclusions;
import io.lbk8s.conflict.ConflictPolicy;
import io.lbk8s.health.HealthServer.Readiness;
import io.lbk8s.ipam.Allocator;
import io.lbk8s.ipam.Assignment;
import io.lbk8s.ipam.Claim;
import io.lbk8s.ipam.ClaimHolder;
import io.lbk8s.ipam.ExcludedAddresses;
import io.lbk8s.ipam.Exclusions;
import io.lbk8s.ipam.FailureReason;
import io.lbk8s.ipam.Outcome;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.kube.BgpConfigInformers;
import io.lbk8s.kube.ClusterAddresses;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.CompactServiceStore;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.kube.ServiceStatusPatch;
import io.lbk8s.kube.Watches;
import io.lbk8s.reconcile.QueueMeters;
import io.lbk8s.reconcile.RateLimitedQueue;
import io.lbk8s.reconcile.ReconcileLoop;
import io.lbk8s.reconcile.ReconcileResult;
import io.lbk8s.reconcile.RetryPolicy;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.Annotations;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServiceRequests;
import io.lbk8s.service.ServiceView;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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

        /** A Node, a speaker Pod's node-network annotation or the API server's endpoints changed. */
        record ClusterAddressesChanged() implements Work {}
    }

    private static final Work CONFIG_CHANGED = new Work.ConfigChanged();
    private static final Work CLUSTER_ADDRESSES_CHANGED = new Work.ClusterAddressesChanged();

    private final KubernetesClient client;
    private final ControllerSettings settings;
    private final EventRecorder events;
    private final ControllerMetrics metrics;
    private final ConfigurationStates configurationState;
    private final RateLimitedQueue<Work> queue = new RateLimitedQueue<>(RetryPolicy.DEFAULT);
    private final Watches watches = new Watches();
    private final ConfigSettling settling = new ConfigSettling(() -> queue.add(CONFIG_CHANGED));
    private final MisplacedConfigWatch misplaced;
    private final ClaimKeeper claims;

    private SharedIndexInformer<Service> services;
    private SharedIndexInformer<Namespace> namespaces;
    private SharedIndexInformer<ConfigMap> configMaps;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> pools = Optional.empty();
    private Optional<SharedIndexInformer<GenericKubernetesResource>> l2Advertisements = Optional.empty();
    private BgpConfigInformers bgp = BgpConfigInformers.NONE;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<Pod> speakerPods;
    private SharedIndexInformer<EndpointSlice> apiServerSlices;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> conflicts = Optional.empty();
    private volatile Instant conflictsChangeAt = Instant.MAX; // when the soonest live conflict turns stale
    private Set<IpAddress> conflictedAddresses = Set.of(); // of the live conflicts, as last applied

    // Owned by the reconcile thread.
    private Allocator allocator;
    private AcceptedConfig accepted = AcceptedConfig.NONE;
    private boolean claimsRebuilt; // this term rebuilt its allocations from the claims
    private Set<ConfigOrigin> refusedPools = Set.of(); // refused objects that define pools, with no version in use
    private final Set<ServiceKey> pending = new HashSet<>();
    private final SaidWarnings saidWarnings = new SaidWarnings();

    private record Yield(ServiceKey service, IpAddress address) {}

    private static final int YIELDS_BEFORE_LEFTOVER = 3;
    /**
     * A Service that yielded tries again this much later, not after a short backoff: the leftover judgement counts
     * refusals in a row, so that {@link #YIELDS_BEFORE_LEFTOVER} of them span over a second, longer than another
     * controller takes from its claim to its status write.
     */
    private static final Duration YIELD_PAUSE = Duration.ofMillis(500);

    private final Map<Yield, Integer> yielded =
            new HashMap<>(); // refusals in a row, forgotten once the Service is shown
    private final Map<String, Map<IpAddress, String>> reportedExclusions = new HashMap<>(); // by pool, as last said
    private long lastMetricsUpdate;

    private volatile boolean synced;
    private volatile boolean configLoaded;
    private volatile String claimsMissing; // why no address can be shown, until a reconcile succeeds again
    private volatile String configState = "no configuration read yet";
    private volatile Thread worker; // the reconcile thread while leading

    public Controller(KubernetesClient client, ControllerSettings settings, MeterRegistry registry) {
        this.client = client;
        this.settings = settings;
        this.events = new EventRecorder(client, COMPONENT, System.getenv().getOrDefault("NODE_NAME", "controller"));
        this.metrics = new ControllerMetrics(registry);
        watches.measure(registry);
        QueueMeters.measure(registry, "controller", queue);
        this.configurationState = new ConfigurationStates(client, settings.namespace(), ConfigurationStates.CONTROLLER);
        this.misplaced = new MisplacedConfigWatch(
                client, settings.namespace(), events, () -> queue.add(new Work.MisplacedConfigChanged()));
        this.claims = new ClaimKeeper(new IpAddressClaims(client, this::namespaceUid), this::serviceExists);
    }

    /**
     * Starts the informers and waits for their first list. A standby replica stops here: its caches stay warm, so
     * that it reconciles at once when it is elected ({@link #lead}).
     */
    public void start() {
        String ns = settings.namespace();
        namespaces = watches.inform(
                "namespaces",
                client.namespaces(),
                handler(n -> queue.add(new Work.NamespaceChanged(n.getMetadata().getName()))));
        configMaps = watches.inform(
                "the configuration ConfigMap",
                client.configMaps().inNamespace(ns).withName(ConfigResources.CONFIG_MAP_NAME),
                handler(c -> settling.changed()));
        pools = customResources(ConfigResources.IP_ADDRESS_POOLS);
        l2Advertisements = customResources(ConfigResources.L2_ADVERTISEMENTS);
        bgp = BgpConfigInformers.start(watches, client, ns, handler(r -> settling.changed()));
        services = watches.inform(
                "services",
                client.services().inAnyNamespace(),
                new CompactServiceStore(),
                handler(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s)))));
        // what no Service may get: the nodes' addresses, their subnets' and gateways (from the speakers), the API
        // server
        nodes = watches.inform("nodes", client.nodes(), handler(n -> queue.add(CLUSTER_ADDRESSES_CHANGED)));
        speakerPods = watches.inform(
                "speaker pods",
                client.pods().inNamespace(ns).withLabels(ClusterNames.SPEAKER_POD_LABELS),
                handler(p -> queue.add(CLUSTER_ADDRESSES_CHANGED)));
        apiServerSlices = watches.inform(
                "the API server's endpointslices",
                ClusterAddresses.apiServerSlices(client),
                handler(e -> queue.add(CLUSTER_ADDRESSES_CHANGED)));
        conflicts = informConflicts();
        misplaced.start();
        watches.checkApi(client); // a partition that drops packets fails no watch: /readyz and the metric say so
        synced = true;
        log.info(
                "informers synced: {} services, config namespace {}",
                services.getStore().list().size(),
                ns);
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
        claimsRebuilt = false;
        accepted = configurationState.accepted().map(AcceptedConfig::of).orElse(AcceptedConfig.NONE);
        refusedPools = Set.of();
        pending.clear();
        yielded.clear();
        reportedExclusions.clear();
        conflictedAddresses = Set.of();
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

    /** The speakers' AddressConflicts (cluster-scoped); none when their CRD is missing, as before an upgrade. */
    private Optional<SharedIndexInformer<GenericKubernetesResource>> informConflicts() {
        try {
            return Optional.of(watches.inform(
                    AddressConflicts.CRD,
                    client.genericKubernetesResources(AddressConflicts.CONTEXT),
                    handler(c -> queue.add(CLUSTER_ADDRESSES_CHANGED))));
        } catch (KubernetesClientException e) {
            log.warn(
                    "cannot watch {} (is the CRD installed?): {}; no address another host uses is kept from Services",
                    AddressConflicts.CRD,
                    e.getMessage());
            return Optional.empty();
        }
    }

    private Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(
            ResourceDefinitionContext context) {
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
        String missing = claimsMissing;
        if (missing != null) {
            return new Readiness(false, missing);
        }
        if (!configLoaded) {
            return new Readiness(false, "no valid configuration loaded: " + configState);
        }
        return new Readiness(true, "ready: " + configState);
    }

    private void runQueue() {
        new ReconcileLoop<>(queue, this::reconcileSafely, Duration.ofSeconds(1), idle -> afterPass())
                .run(() -> worker == Thread.currentThread());
    }

    private void afterPass() {
        if (Instant.now().isAfter(conflictsChangeAt)) {
            conflictsChangeAt = Instant.MAX;
            queue.add(CLUSTER_ADDRESSES_CHANGED); // a conflict turned stale: its address is free again
        }
        long now = System.nanoTime();
        if (allocator != null && (queue.depth() == 0 || now - lastMetricsUpdate > 500_000_000L)) {
            metrics.usage(allocator.usage(), allocator.assignedCount());
            metrics.assignments(allocator.assignments());
            lastMetricsUpdate = now;
        }
    }

    private ReconcileResult reconcileSafely(Work work) {
        try {
            reconcile(work);
            return ReconcileResult.DONE;
        } catch (IpAddressClaims.MissingCrd e) {
            if (claimsMissing == null) {
                log.error("{}", e.getMessage());
            }
            claimsMissing = e.getMessage();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                // Our cache is behind a write (often our own): the newer version is on its way and is reconciled again,
                // after a backoff so that a reconcile of the same stale copy does not spin until it comes.
                log.debug("reconcile of {} met a newer version, reconciling again", work);
            } else if (e.getCode() == 404 && work instanceof Work.ServiceChanged) {
                // The same for a Service deleted after our cache's copy: its deletion is on its way, and the reconcile
                // that follows it frees the address. Nothing failed that an operator should hear of.
                log.debug("{} was deleted after the copy it was reconciled on; reconciling again", work);
            } else {
                log.warn("reconcile of {} failed, will retry: {}", work, e.getMessage());
            }
        }
        return ReconcileResult.RETRY;
    }

    private void reconcile(Work work) {
        switch (work) {
            case Work.ConfigChanged _ -> reconcileConfig();
            case Work.ServiceChanged(ServiceKey key) -> reconcileService(key);
            case Work.NamespaceChanged(String name) ->
                services.getStore().list().stream()
                        .filter(s -> name.equals(s.getMetadata().getNamespace()))
                        .forEach(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s))));
            case Work.MisplacedConfigChanged _ -> {
                misplaced.tellSilent();
                retryPending(); // their AllocationFailed names what is where
            }
            case Work.ClusterAddressesChanged _ -> {
                if (allocator != null) {
                    applyExclusions();
                }
            }
        }
        if (work instanceof Work.ConfigChanged) {
            claimsMissing = null; // it lists the claims: they are served again
        }
    }

    // ---- configuration ----

    private void reconcileConfig() {
        long settled = settling.applying();
        AcceptedConfig.Outcome outcome = accepted.accept(ConfigResources.sources(
                pools.map(i -> i.getStore().list()).orElse(List.of()),
                l2Advertisements.map(i -> i.getStore().list()).orElse(List.of()),
                Optional.ofNullable(
                        configMaps.getStore().getByKey(settings.namespace() + "/" + ConfigResources.CONFIG_MAP_NAME)),
                bgp.objects()));
        accepted = outcome.next();
        ConfigResult result = outcome.result();
        for (ConfigProblem problem : result.problems()) {
            boolean error = problem.severity() == ConfigProblem.Severity.ERROR;
            String message = problem.message()
                    + (!error
                            ? ""
                            : outcome.kept().contains(problem.origin())
                                    ? "; lbk8s keeps using the version of this object it last accepted"
                                    : "; lbk8s does not use this object until it is fixed");
            if (error) {
                log.error("config error: {}", problem);
            } else {
                log.warn("config warning: {}", problem);
            }
            objectOf(problem.origin())
                    .ifPresent(object -> events.record(
                            object,
                            EventRecorder.Type.Warning,
                            error ? "InvalidConfiguration" : "ConfigurationWarning",
                            message));
        }
        refusedPools = outcome.unused().stream()
                .filter(o -> o.kind() == ConfigOrigin.Kind.IPAddressPool || o.kind() == ConfigOrigin.Kind.ConfigMap)
                .collect(Collectors.toUnmodifiableSet());
        metrics.configValid(result.valid());
        List<String> errorMessages = result.problems().stream()
                .filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                .map(ConfigProblem::toString)
                .toList();
        configurationState.report(result.valid(), String.join("; ", errorMessages), accepted.sources());
        Config config = result.config();
        String refused = outcome.kept().size() + outcome.unused().size() == 0
                ? ""
                : "; refused: " + describe(outcome.unused())
                        + (outcome.kept().isEmpty()
                                ? ""
                                : " (kept at their last accepted version: " + describe(outcome.kept()) + ")");
        configState = "configuration " + (result.valid() ? "valid" : "in use") + ": "
                + config.pools().size() + " pool(s), "
                + config.l2Advertisements().size() + " L2Advertisement(s)" + bgpCounts(config) + refused;
        if (result.valid()) {
            log.info("{}", configState);
        } else {
            log.error("{}", configState);
        }
        configLoaded = !config.pools().isEmpty() || outcome.unused().isEmpty();
        if (!configLoaded) {
            configState = "every configuration object is refused: " + describe(outcome.unused());
        }
        List<Claim> claimed = claims.all();
        if (allocator == null) {
            allocator = new Allocator(config);
        } else {
            for (ServiceKey released : allocator.reconfigure(config)) {
                log.info("{} lost its addresses: the configuration no longer contains them", released);
                Optional.ofNullable(serviceByKey(released))
                        .ifPresent(s -> events.record(
                                s,
                                EventRecorder.Type.Normal,
                                "ClearAssignment",
                                "addresses cleared: their pool was removed or no longer contains them"));
            }
        }
        applyExclusions(); // before any Service is restored or given an address
        restoreFromStatus(claimed);
        if (!claimsRebuilt) {
            rebuildFromClaims(claimed);
            claimsRebuilt = true; // only once it went through: a failure is retried with the next pass
        }
        settling.applied(settled);
        services.getStore().list().forEach(s -> queue.add(new Work.ServiceChanged(ServiceMapping.keyOf(s))));
    }

    /**
     * Computes the excluded addresses from the caches and hands them to the allocator. A Service holding one that
     * became excluded is reconciled again: it moves, or is refused when it asked for that address, and is told why.
     * Each pool whose excluded addresses changed gets a Warning Event listing them (once per change) and a log line.
     */
    private void applyExclusions() {
        ExcludedAddresses excluded = Exclusions.of(ClusterAddresses.inputs(
                nodes.getStore().list(),
                speakerPods.getStore().list(),
                apiServerSlices.getStore().list()));
        ConflictExclusions.Result conflicted =
                ConflictExclusions.of(liveConflicts(), Instant.now(), this::conflictHolders);
        conflictsChangeAt = conflicted.nextChange().orElse(Instant.MAX);
        conflictedAddresses =
                conflicted.live().stream().map(AddressConflict::address).collect(Collectors.toSet());
        metrics.addressConflicts(conflicted.live().size());
        for (ConflictExclusions.Kept kept : conflicted.kept()) {
            Optional.ofNullable(serviceByKey(kept.service()))
                    .ifPresent(s -> events.record(
                            s,
                            EventRecorder.Type.Warning,
                            "AddressConflict",
                            kept.conflict().address() + " is " + ConflictExclusions.describe(kept.conflict()) + ": "
                                    + kept.why()));
        }
        Set<ServiceKey> released = allocator.exclude(excluded.plus(conflicted.excluded()));
        for (ServiceKey key : released) {
            log.info("{} holds an address that is now excluded; choosing again", key);
            queue.add(new Work.ServiceChanged(key));
        }
        if (!released.isEmpty()) {
            retryPending();
        }
        Set<String> poolNames = new HashSet<>();
        for (AddressPool pool : allocator.config().pools()) {
            poolNames.add(pool.name());
            Map<IpAddress, String> now = allocator.excludedIn(pool.name());
            Map<IpAddress, String> before = reportedExclusions.getOrDefault(pool.name(), Map.of());
            if (now.equals(before)) {
                continue;
            }
            reportedExclusions.put(pool.name(), now);
            String subject =
                    pool.origin().kind() == ConfigOrigin.Kind.IPAddressPool ? "" : "pool " + pool.name() + ": ";
            if (now.isEmpty()) {
                log.info("pool {}: no address is excluded any more", pool.name());
                objectOf(pool.origin())
                        .ifPresent(o -> events.record(
                                o,
                                EventRecorder.Type.Normal,
                                "AddressesExcluded",
                                subject + "no address of this pool is excluded any more"));
                continue;
            }
            String message = subject + now.size() + " address(es) of this pool are not given to any Service: "
                    + ExcludedAddresses.describe(now);
            log.warn("pool {}: {} address(es) excluded: {}", pool.name(), now.size(), ExcludedAddresses.describe(now));
            objectOf(pool.origin())
                    .ifPresent(o -> events.record(o, EventRecorder.Type.Warning, "AddressesExcluded", message));
        }
        reportedExclusions.keySet().retainAll(poolNames);
    }

    private List<AddressConflict> liveConflicts() {
        return conflicts
                .map(i -> i.getStore().list().stream()
                        .map(AddressConflicts::toConflict)
                        .flatMap(Optional::stream)
                        .toList())
                .orElse(List.of());
    }

    /** The Services holding an address, with what the conflict policy needs of each. */
    private List<ConflictExclusions.Holder> conflictHolders(IpAddress ip) {
        List<ConflictExclusions.Holder> holders = new ArrayList<>();
        for (ServiceKey key : allocator.holdersOf(ip)) {
            Service service = serviceByKey(key);
            if (service == null) {
                continue;
            }
            ServiceView view = ServiceMapping.view(service);
            boolean requested =
                    requestOf(view).map(r -> r.requestedIps().contains(ip)).orElse(false);
            Optional<ConflictPolicy> chosen = switch (ConflictPolicy.parse(
                    Optional.ofNullable(view.annotations().get(ConflictPolicy.ANNOTATION)))) {
                case ConflictPolicy.Parsed.Chosen(var policy) -> policy;
                case ConflictPolicy.Parsed.Invalid(String message) -> {
                    events.record(service, EventRecorder.Type.Warning, "InvalidAnnotation", message);
                    yield Optional.empty();
                }
            };
            holders.add(new ConflictExclusions.Holder(key, requested, chosen));
        }
        return holders;
    }

    private static String describe(Set<ConfigOrigin> origins) {
        return origins.stream().map(ConfigOrigin::toString).sorted().collect(Collectors.joining(", "));
    }

    /**
     * Before any allocation from a new configuration, every served Service claims the addresses in its status, so
     * that a restart (or a Service reconciled early, or a pool that comes back) can never take an address another
     * Service already shows to its users.
     */
    private void restoreFromStatus(List<Claim> claimed) {
        Map<IpAddress, Claim> byAddress = claimed.stream().collect(Collectors.toMap(Claim::address, c -> c));
        int restored = 0;
        for (Service service : services.getStore().list()) {
            ServiceView view = ServiceMapping.view(service);
            if (view.statusIps().isEmpty() || allocator.assignmentOf(view.key()).isPresent()) {
                continue;
            }
            ClaimHolder holder = holderOf(service);
            boolean claimedByOthers = view.statusIps().stream()
                    .map(byAddress::get)
                    .filter(Objects::nonNull)
                    .anyMatch(c -> !c.heldByOthers(holder, this::serviceExists).isEmpty());
            if (claimedByOthers) {
                continue; // its reconcile says so and gives it another address
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
        return requestOf(view).flatMap(r -> allocator.restore(r, view.statusIps()));
    }

    /** What a served Service asks for; one with an invalid request asks for what it has, without its requests. */
    private Optional<AllocationRequest> requestOf(ServiceView view) {
        Map<String, String> labels = namespaceLabels(view.key().namespace());
        return switch (ServiceRequests.decide(view, labels, settings.lbClass())) {
            case ServiceRequests.Decision.Request(var asked, var _) -> Optional.of(asked);
            case ServiceRequests.Decision.Invalid _ ->
                ServiceRequests.withoutItsRequests(view, labels, settings.lbClass());
            case ServiceRequests.Decision.NotServed _, ServiceRequests.Decision.OtherClass _ -> Optional.empty();
        };
    }

    /**
     * A Service shows addresses this controller does not know it holds (it started leading, or the Service came with
     * a status): they are its own unless another Service holds their claims; then it says so and gets others.
     */
    private Optional<Assignment> restoreShown(Service service, ServiceView view) {
        ClaimHolder holder = holderOf(service);
        List<ClaimHolder> others = claims.heldByOthers(holder, view.statusIps());
        if (!others.isEmpty()) {
            String message = "it shows " + view.statusIps() + ", but " + describeHolders(others)
                    + " holds the IPAddressClaim of that address; it gets another address";
            events.record(service, EventRecorder.Type.Warning, "AddressClaimed", message);
            log.warn("{}: {}", view.key(), message);
            return Optional.empty();
        }
        Optional<AllocationRequest> request = requestOf(view);
        Optional<Assignment> restored = request.flatMap(r -> allocator.restore(r, view.statusIps()));
        if (restored.isPresent()
                && claims.hold(holder, restored.get(), request.get().sharingKey())
                        .isPresent()) {
            allocator.release(view.key());
            return Optional.empty();
        }
        return restored;
    }

    private static String describeHolders(List<ClaimHolder> holders) {
        return holders.stream().map(h -> h.service().toString()).collect(Collectors.joining(", "));
    }

    private static ClaimHolder holderOf(Service service) {
        return new ClaimHolder(
                ServiceMapping.keyOf(service), service.getMetadata().getUid());
    }

    private Optional<String> namespaceUid(String namespace) {
        return Optional.ofNullable(namespaces)
                .map(i -> i.getStore().getByKey(namespace))
                .map(n -> n.getMetadata().getUid());
    }

    /** Whether the Service a claim names exists: the cache first, then the API (the cache may lag a creation). */
    private boolean serviceExists(ClaimHolder holder) {
        Service cached = serviceByKey(holder.service());
        if (cached != null && holder.uid().equals(cached.getMetadata().getUid())) {
            return true;
        }
        Service live = client.services()
                .inNamespace(holder.service().namespace())
                .withName(holder.service().name())
                .get();
        return live != null && holder.uid().equals(live.getMetadata().getUid());
    }

    /**
     * At the start of a term, the claims complete what the Services' status says: a Service that holds claims but
     * shows nothing yet (its controller stopped between the two writes) gets those addresses; claims of deleted
     * Services, or of addresses their Service no longer shows, are let go; and addresses a Service shows without a
     * claim (written before claims existed) are claimed for it.
     */
    private void rebuildFromClaims(List<Claim> claimed) {
        Map<ServiceKey, List<IpAddress>> shownNowhere = new TreeMap<>();
        int released = 0;
        for (Claim claim : claimed) {
            for (ClaimHolder holder : claim.holders()) {
                Service service = serviceByKey(holder.service());
                boolean live = serviceExists(holder);
                List<IpAddress> shown = service == null ? List.of() : ServiceMapping.statusIps(service);
                Optional<Assignment> held = allocator.assignmentOf(holder.service());
                if (live
                        && (shown.contains(claim.address())
                                || held.map(a -> a.ips().contains(claim.address()))
                                        .orElse(false))) {
                    continue; // in use (shown even when no pool holds it now: kept while its pool is refused)
                }
                if (live && shown.isEmpty() && held.isEmpty()) {
                    shownNowhere
                            .computeIfAbsent(holder.service(), _ -> new ArrayList<>())
                            .add(claim.address());
                } else {
                    claims.release(holder.service(), List.of(claim.address())); // gone, or shows and holds others
                    released++;
                }
            }
        }
        shownNowhere.forEach((key, ips) -> Optional.ofNullable(serviceByKey(key))
                .map(ServiceMapping::view)
                .flatMap(view -> requestOf(view).flatMap(r -> allocator.restore(r, ips)))
                .ifPresent(a -> log.info(
                        "{}: holds the claims of {}, which its status does not show yet; keeps them", key, a.ips())));
        Set<IpAddress> held = claimed.stream().map(Claim::address).collect(Collectors.toSet());
        int adopted = 0;
        for (Assignment assignment : allocator.assignments().values()) {
            if (!held.containsAll(assignment.ips())) {
                Service service = serviceByKey(assignment.service());
                Optional<String> sharingKey =
                        requestOf(ServiceMapping.view(service)).flatMap(r -> r.sharingKey());
                if (claims.hold(holderOf(service), assignment, sharingKey).isEmpty()) { // else its reconcile says why
                    adopted++;
                }
            }
        }
        log.info(
                "address claims: {} read, {} let go, {} created for addresses shown without one",
                claimed.size(),
                released,
                adopted);
    }

    private Optional<HasMetadata> objectOf(ConfigOrigin origin) {
        String key = origin.namespace() + "/" + origin.name();
        return switch (origin.kind()) {
            case IPAddressPool -> pools.map(i -> i.getStore().getByKey(key));
            case L2Advertisement -> l2Advertisements.map(i -> i.getStore().getByKey(key));
            case ConfigMap -> Optional.ofNullable(configMaps.getStore().getByKey(key));
            case BGPPeer, BGPAdvertisement, Community, BFDProfile ->
                bgp.object(origin).map(o -> o);
        };
    }

    /** ", 2 BGPPeer(s), 1 BGPAdvertisement(s)" when BGP is configured; nothing for a layer-2 configuration. */
    private static String bgpCounts(Config config) {
        if (config.bgpPeers().isEmpty() && config.bgpAdvertisements().isEmpty()) {
            return "";
        }
        return ", " + config.bgpPeers().size() + " BGPPeer(s), "
                + config.bgpAdvertisements().size() + " BGPAdvertisement(s)";
    }

    // ---- services ----

    private Service serviceByKey(ServiceKey key) {
        return services.getStore().getByKey(key.namespace() + "/" + key.name());
    }

    private Map<String, String> namespaceLabels(String namespace) {
        Namespace ns = namespaces.getStore().getByKey(namespace);
        return ns == null || ns.getMetadata().getLabels() == null
                ? Map.of()
                : ns.getMetadata().getLabels();
    }

    private void reconcileService(ServiceKey key) {
        if (allocator == null) {
            return; // no valid configuration yet: touch nothing, the Service is reconciled once one arrives
        }
        Optional<Assignment> held = allocator.assignmentOf(key);
        if (held.filter(a -> a.ips().stream().anyMatch(conflictedAddresses::contains))
                .isPresent()) {
            queue.add(CLUSTER_ADDRESSES_CHANGED); // its going, or its policy, changes whether its address is kept
        }
        Service service = serviceByKey(key);
        if (service == null) {
            Optional<Assignment> released = release(key);
            if (released.isPresent()) {
                claims.release(key, released.get().ips());
                log.info("{} deleted; its addresses are free", key);
            }
            saidWarnings.forget(key);
            yielded.keySet().removeIf(y -> y.service().equals(key));
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
                if (held.isEmpty() && !view.statusIps().isEmpty()) {
                    held = restoreShown(service, view);
                }
                String kept = held.map(a -> "; keeping its current addresses " + a.ips())
                        .orElse("");
                events.record(service, EventRecorder.Type.Warning, "AllocationFailed", message + kept);
                log.warn("{}: {}{}", key, message, kept);
                if (held.isEmpty()) {
                    pending.add(key);
                }
            }
            case ServiceRequests.Decision.Request(var request, List<ServiceRequests.Warning> warnings) -> {
                warn(service, warnings);
                if (held.isEmpty() && !view.statusIps().isEmpty()) {
                    held = restoreShown(service, view);
                }
                if (held.isEmpty() && !view.statusIps().isEmpty() && !refusedPools.isEmpty()) {
                    keepWhileRefused(service, view);
                    return;
                }
                if (held.isEmpty() && settling.unsettled()) {
                    pending.add(key); // given its address once the configuration being applied has settled
                    return;
                }
                List<IpAddress> before = held.map(Assignment::ips).orElse(List.of());
                Map<IpAddress, String> lost = excludedOf(union(view.statusIps(), before));
                Outcome outcome = allocator.assign(request);
                tellExcluded(service, lost, outcome);
                switch (outcome) {
                    case Outcome.Assigned(Assignment assignment, boolean changed) -> {
                        pending.remove(key);
                        if (changed && held.isPresent()) {
                            retryPending(); // what it held may be free for those waiting
                        }
                        publish(service, view, request, assignment, before);
                    }
                    case Outcome.Failed(var reason, String failure) -> {
                        String message = reason == FailureReason.NO_POOLS ? misplaced.noPools(failure) : failure;
                        metrics.failure(reason.name());
                        pending.add(key);
                        events.record(service, EventRecorder.Type.Warning, "AllocationFailed", message);
                        log.warn("{}: no address: {}", key, message);
                        if (held.isPresent()) {
                            retryPending();
                        }
                        clearPublished(service, view, "AllocationFailed", before);
                    }
                }
            }
        }
    }

    /** Which of these addresses are excluded, with why. */
    private Map<IpAddress, String> excludedOf(List<IpAddress> ips) {
        Map<IpAddress, String> excluded = new TreeMap<>();
        ips.forEach(ip -> allocator.whyExcluded(ip).ifPresent(why -> excluded.put(ip, why)));
        return excluded;
    }

    /**
     * A Service that showed or held an excluded address is told it lost it, why, and what it has instead; one that
     * asked for it reads why in its AllocationFailed too.
     */
    private void tellExcluded(Service service, Map<IpAddress, String> lost, Outcome outcome) {
        if (lost.isEmpty()) {
            return;
        }
        String why =
                ExcludedAddresses.describe(lost) + (lost.size() == 1 ? " is" : " are") + " not given to any Service";
        String message = switch (outcome) {
            case Outcome.Assigned(Assignment a, var _) ->
                why + "; it moves to "
                        + a.ips().stream().map(IpAddress::toString).collect(Collectors.joining(", ")) + " from pool "
                        + a.pool();
            case Outcome.Failed(var reason, String failure) -> why + "; it has no address now: " + failure;
        };
        events.record(service, EventRecorder.Type.Warning, "AddressExcluded", message);
        log.warn("{}: {}", ServiceMapping.keyOf(service), message);
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
        saidWarnings
                .unsaid(ServiceMapping.keyOf(service), service.getMetadata().getUid(), warnings)
                .forEach(w -> events.record(
                        service, EventRecorder.Type.Warning, w.reason().name(), w.message()));
    }

    private void retryPending() {
        pending.forEach(k -> queue.add(new Work.ServiceChanged(k)));
    }

    /** Another controller's Service: what lbk8s held for it is free again, and nothing is written to it. */
    private void forget(ServiceKey key, String why) {
        Optional<Assignment> held = release(key);
        if (held.isPresent()) {
            claims.release(key, held.get().ips());
            log.info("{}: {}; released its addresses here and leaves the Service to its controller", key, why);
        }
    }

    /**
     * The Service waits for nothing any more, and what it held is free for those that wait (retried); what it held.
     * Its claims are the caller's to let go, once its status no longer shows them.
     */
    private Optional<Assignment> release(ServiceKey key) {
        pending.remove(key);
        Optional<Assignment> held = allocator.release(key);
        if (held.isPresent()) {
            retryPending();
        }
        return held;
    }

    private void stopServing(Service service, ServiceView view, String why) {
        ServiceKey key = view.key();
        Optional<Assignment> held = release(key);
        if (held.isPresent() || view.annotations().containsKey(Annotations.ALLOCATED_FROM_POOL)) {
            log.info("{} no longer served ({}); clearing its addresses", key, why);
            events.record(service, EventRecorder.Type.Normal, "ClearAssignment", "addresses cleared: " + why);
            clearPublished(
                    service, view, "ClearAssignment", held.map(Assignment::ips).orElse(List.of()));
        }
    }

    /**
     * Writes the pool annotation and the status, each only when it differs from what the Service shows. A new
     * address appears in the status only once the Service holds its claim; the claims of addresses it showed or held
     * before are let go only once the status no longer shows them.
     */
    private void publish(
            Service service,
            ServiceView view,
            AllocationRequest request,
            Assignment assignment,
            List<IpAddress> heldBefore) {
        List<String> wanted = assignment.ips().stream().map(IpAddress::toString).toList();
        List<String> shown = view.statusIps().stream().map(IpAddress::toString).toList();
        boolean statusChanges = !wanted.equals(shown) || hasHostnames(service);
        if (statusChanges) {
            Optional<ClaimKeeper.Refusal> refused = claims.hold(holderOf(service), assignment, request.sharingKey());
            if (refused.isPresent()) {
                yieldAddress(view, assignment, refused.get());
                return;
            }
            try {
                // With the resourceVersion we decided on: a stale cache gets a 409, not a lost write.
                writeStatus(service, wanted);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409 && anotherWriterWon(service, request, assignment)) {
                    return;
                }
                throw e;
            }
            claims.release(view.key(), without(union(view.statusIps(), heldBefore), assignment.ips()));
            yielded.keySet().removeIf(y -> y.service().equals(view.key()));
        }
        if (!assignment.pool().equals(view.annotations().get(Annotations.ALLOCATED_FROM_POOL))) {
            patchAnnotation(service, assignment.pool());
        }
        if (statusChanges) {
            String ips = String.join("\", \"", wanted);
            events.record(
                    service,
                    EventRecorder.Type.Normal,
                    "IPAllocated",
                    "Assigned IP [\"" + ips + "\"] from pool " + assignment.pool());
            log.info("{}: assigned {} from pool {}", view.key(), wanted, assignment.pool());
        }
    }

    private static boolean hasHostnames(Service service) {
        return service.getStatus() != null
                && service.getStatus().getLoadBalancer() != null
                && service.getStatus().getLoadBalancer().getIngress() != null
                && service.getStatus().getLoadBalancer().getIngress().stream().anyMatch(i -> i.getIp() == null);
    }

    /** Clears the status and the annotation, then lets go of the claims of what it showed and held. */
    private void clearPublished(Service service, ServiceView view, String why, List<IpAddress> heldBefore) {
        if (!view.statusIps().isEmpty()) {
            writeStatus(service, List.of());
            log.info("{}: status cleared ({})", view.key(), why);
        }
        claims.release(view.key(), union(view.statusIps(), heldBefore));
        if (view.annotations().containsKey(Annotations.ALLOCATED_FROM_POOL)) {
            patchAnnotation(service, null);
        }
    }

    /**
     * An address is claimed by other Services (another controller gave it, or this one's memory is behind): it is
     * not free whatever the allocator says. The Service lets go of what it claimed in this pass, the holder gets the
     * address in this controller's memory when it holds nothing here, and the Service tries again. A holder that
     * holds other addresses here and does not show this one keeps a leftover claim (its controller stopped between
     * the claim and the status): after {@link #YIELDS_BEFORE_LEFTOVER} refusals it is let go.
     */
    private void yieldAddress(ServiceView view, Assignment assignment, ClaimKeeper.Refusal refusal) {
        ServiceKey key = view.key();
        IpAddress ip = refusal.address();
        log.info("{}: {} is held by {} (IPAddressClaim); choosing again", key, ip, describeHolders(refusal.holders()));
        claims.release(key, without(assignment.ips(), view.statusIps()));
        allocator.release(key);
        int yields = yielded.merge(new Yield(key, ip), 1, Integer::sum);
        for (ClaimHolder other : refusal.holders()) {
            Service holder = serviceByKey(other.service());
            if (holder == null) {
                continue;
            }
            Optional<Assignment> held = allocator.assignmentOf(other.service());
            if (held.isEmpty()) {
                requestOf(ServiceMapping.view(holder)).ifPresent(r -> allocator.restore(r, List.of(ip)));
            } else if (!held.get().ips().contains(ip)
                    && yields >= YIELDS_BEFORE_LEFTOVER
                    && !ServiceMapping.statusIps(holder).contains(ip)) {
                log.info(
                        "{}: its IPAddressClaim of {} is a leftover (it holds {}); letting it go",
                        other.service(),
                        ip,
                        held.get().ips());
                claims.release(other.service(), List.of(ip));
                yielded.remove(new Yield(key, ip));
            }
        }
        pending.add(key);
        queue.addAfter(new Work.ServiceChanged(key), YIELD_PAUSE);
    }

    /**
     * The status write met a newer version of the Service. If that version shows addresses whose claims the Service
     * holds, another controller wrote them: they are its addresses, and what this one claimed for it is let go.
     * Otherwise (false) the reconcile is simply retried on the newer version.
     */
    private boolean anotherWriterWon(Service service, AllocationRequest request, Assignment assignment) {
        ServiceKey key = ServiceMapping.keyOf(service);
        Service live = client.services()
                .inNamespace(key.namespace())
                .withName(key.name())
                .get();
        if (live == null
                || !service.getMetadata().getUid().equals(live.getMetadata().getUid())) {
            return false;
        }
        List<IpAddress> shown = ServiceMapping.statusIps(live);
        if (Set.copyOf(shown).equals(Set.copyOf(assignment.ips()))) {
            return true; // it shows them already (an earlier write of ours)
        }
        if (shown.isEmpty() || !claims.heldBy(holderOf(live), shown)) {
            return false;
        }
        log.info("{}: another controller gave it {} meanwhile; keeping those, not {}", key, shown, assignment.ips());
        claims.release(key, without(assignment.ips(), shown));
        allocator.release(key);
        allocator.restore(request, shown);
        return true;
    }

    private static List<IpAddress> union(List<IpAddress> a, List<IpAddress> b) {
        return Stream.concat(a.stream(), b.stream()).distinct().toList();
    }

    private static List<IpAddress> without(List<IpAddress> from, List<IpAddress> removed) {
        return from.stream().filter(ip -> !removed.contains(ip)).toList();
    }

    private void patchAnnotation(Service service, String pool) {
        String value = pool == null ? "null" : "\"" + pool.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        String patch = "{\"metadata\":{\"annotations\":{\"" + Annotations.ALLOCATED_FROM_POOL + "\":" + value + "}}}";
        // to the Service as given, not by name: fabric8 would GET a Service known by name alone before patching it
        client.services().resource(service).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    private void writeStatus(Service service, List<String> ips) {
        ServiceStatusPatch.write(client, service, ips);
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

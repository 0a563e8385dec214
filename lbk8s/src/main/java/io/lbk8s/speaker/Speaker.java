package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.config.AcceptedConfig;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.health.HealthServer.Readiness;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.kube.BgpConfigInformers;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.kube.CompactEndpointSliceStore;
import io.lbk8s.kube.CompactServiceStore;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.OwnPod;
import io.lbk8s.kube.ServiceBgpStatuses;
import io.lbk8s.kube.ServiceL2Statuses;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.kube.Watches;
import io.lbk8s.net.Fence;
import io.lbk8s.net.ResponderOptions;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.DefaultGateways;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.peers.Liveness;
import io.lbk8s.peers.Membership;
import io.lbk8s.reconcile.QueueMeters;
import io.lbk8s.reconcile.RateLimitedQueue;
import io.lbk8s.reconcile.ReconcileLoop;
import io.lbk8s.reconcile.ReconcileResult;
import io.lbk8s.reconcile.RetryPolicy;
import io.lbk8s.service.ServiceKey;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The speaker's imperative shell: informers on Services, EndpointSlices, Nodes, speaker Pods and the configuration
 * feed one queue, and so does the failure detector among speakers ({@link PeerWatch}) when it judges a node anew; a
 * single thread recomputes this node's {@link NodePlan} and hands it to the {@link Announcer}, and its {@link BgpPlan}
 * to the {@link BgpAdvertiser}, then tells users what happened (Events, ServiceL2Status objects, metrics).
 */
public final class Speaker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Speaker.class);
    private static final String COMPONENT = "lbk8s-speaker";
    private static final String PLAN = "plan";
    /** A BGP session's status changed: reported without planning again. */
    private static final String SESSIONS = "bgp-sessions";
    /** Interfaces and their addresses change without an API event; look again this often. */
    private static final Duration RELOOK = Duration.ofSeconds(5);
    /**
     * After this long without a watch event the speaker asks the API server for its version, and after this long
     * unanswered says it is not watching: ~0.2 requests a second per node in a quiet cluster, none in a busy one.
     */
    private final KubernetesClient client;

    private final SpeakerSettings settings;
    private final EventRecorder events;
    private final SpeakerMetrics metrics;
    private final ServiceL2Statuses statuses;
    private final Announcer announcer;
    private final Conflicts conflicts;
    private final LookaheadProbes lookahead;
    private final AddressConflicts conflictObjects;
    private final NodeNetworkAnnotation nodeNetworkAnnotation;
    private final MeterRegistry registry;
    private final Fence fence;
    private final BgpAdvertiser bgp;
    private final PasswordSecrets passwords;
    private final RateLimitedQueue<String> queue = new RateLimitedQueue<>(RetryPolicy.DEFAULT);
    private final Watches watches = new Watches();
    private final PlanFacts facts;
    private final ServiceReads reads;
    private final PlanCache planCache = new PlanCache();

    private SharedIndexInformer<Service> services;
    private SharedIndexInformer<EndpointSlice> endpointSlices;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<Pod> speakerPods;
    private SharedIndexInformer<ConfigMap> configMaps;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> pools = Optional.empty();
    private Optional<SharedIndexInformer<GenericKubernetesResource>> l2Advertisements = Optional.empty();
    private BgpConfigInformers bgpConfig = BgpConfigInformers.NONE;
    private Optional<SharedIndexInformer<GenericKubernetesResource>> addressConflicts = Optional.empty();

    // Owned by the reconcile thread.
    private Config config;
    private AcceptedConfig accepted = AcceptedConfig.NONE;
    private String lastConfigVerdict = "";
    private volatile NodePlan plan = NodePlan.EMPTY; // read by the conflicts' threads
    private Set<IpAddress> withheldWarned = Set.of(); // this node's own addresses the controller assigned, warned once
    private NodePlan.Inputs planInputs;
    private int stallsSeen;
    private Map<ServiceKey, Set<String>> announcedServices = Map.of();
    /** After a stall: the status objects are written from the API's view even if this node now announces nothing. */
    private boolean statusesStale;

    private Set<ServiceKey> warnedServices =
            Set.of(); // those this speaker gave a NotAnnounced Warning in its last plan
    private volatile Optional<PeerWatch> peers = Optional.empty();

    private volatile boolean synced;
    private volatile boolean stopping;
    private volatile Thread worker;

    /** A speaker with this node's real BGP sessions. */
    public Speaker(KubernetesClient client, SpeakerSettings settings, MeterRegistry registry) {
        this(client, settings, registry, BgpSessionsFactory.listening(settings.bgpListenPort()));
    }

    public Speaker(
            KubernetesClient client, SpeakerSettings settings, MeterRegistry registry, BgpSessionsFactory bgpSessions) {
        this.client = client;
        this.settings = settings;
        this.events = new EventRecorder(client, COMPONENT, settings.node());
        this.metrics = new SpeakerMetrics(registry, settings.node());
        this.facts = new PlanFacts(settings.lbClass(), this::plannedNow);
        this.reads = new ServiceReads(settings.lbClass());
        watches.measure(registry);
        QueueMeters.measure(registry, "speaker", queue);
        this.statuses = new ServiceL2Statuses(client, settings.podNamespace(), settings.node(), this::failedNow);
        this.registry = registry;
        // With the detector, this node answers only while the detector renews the fence: a frozen speaker goes silent.
        this.fence = settings.peers().enabled() ? Fence.renewable() : Fence.unlimited();
        this.conflictObjects = new AddressConflicts(client);
        this.conflicts =
                new Conflicts(settings.node(), metrics, events, Optional.of(conflictObjects), new Conflicts.Hooks() {
                    @Override
                    public boolean leads(IpAddress ip) {
                        return plan.announced().containsKey(ip);
                    }

                    @Override
                    public Optional<Service> serviceOf(IpAddress ip) {
                        return serviceHolding(ip);
                    }

                    @Override
                    public void withdraw(IpAddress ip) {
                        announcer.withdraw(ip);
                    }

                    @Override
                    public void defend(IpAddress ip) {
                        announcer.defend(ip);
                    }

                    @Override
                    public void replan() {
                        queue.add(PLAN);
                    }
                });
        this.lookahead = new LookaheadProbes(conflicts);
        this.announcer = new Announcer(
                metrics,
                new Announcer.Options(
                        settings.takeoverBurst(),
                        settings.gratuitousRefresh(),
                        ResponderOptions.DEFAULTS
                                .withReceiveBufferBytes(settings.receiveBufferBytes())
                                .withArpInKernel(settings.arpInKernel())
                                .withFence(fence),
                        settings.takeoverProbe(),
                        settings.peers().enabled()
                                ? settings.peers().membership().timeout()
                                : Duration.ZERO),
                conflicts,
                () -> queue.add(PLAN));
        this.nodeNetworkAnnotation = new NodeNetworkAnnotation(client, settings.podNamespace(), settings.podName());
        this.bgp = new BgpAdvertiser(
                settings.node(),
                bgpSessions.start(() -> queue.add(SESSIONS)),
                metrics,
                events,
                this::nodeObject,
                new BgpSessionStates(client, settings.podNamespace(), settings.node()),
                new ServiceBgpStatuses(client, settings.podNamespace(), settings.node(), this::failedNow));
        this.passwords = new PasswordSecrets(client, settings.configNamespace(), () -> queue.add(PLAN));
    }

    public void start() {
        announcer.checkRawSockets();
        String ns = settings.configNamespace();
        nodes = watches.inform("nodes", client.nodes(), handler());
        speakerPods = watches.inform(
                "speaker pods",
                client.pods().inNamespace(settings.podNamespace()).withLabels(settings.speakerPodLabels()),
                handler());
        configMaps = watches.inform(
                "the configuration ConfigMap",
                client.configMaps().inNamespace(ns).withName(ConfigResources.CONFIG_MAP_NAME),
                handler());
        pools = customResources(ConfigResources.IP_ADDRESS_POOLS);
        l2Advertisements = customResources(ConfigResources.L2_ADVERTISEMENTS);
        bgpConfig = BgpConfigInformers.start(watches, client, settings.configNamespace(), handler());
        endpointSlices = watches.inform(
                "endpointslices",
                client.discovery().v1().endpointSlices().inAnyNamespace(),
                new CompactEndpointSliceStore(),
                handler());
        services = watches.inform("services", client.services().inAnyNamespace(), new CompactServiceStore(), handler());
        adoptConflicts();
        watches.checkApi(client);
        synced = true;
        // judge the configuration as the controller does, even when a pool's current version is refused
        new ConfigurationStates(client, ns, ConfigurationStates.CONTROLLER)
                .accepted()
                .ifPresent(recorded -> accepted = AcceptedConfig.of(recorded));
        log.info(
                "informers synced: {} services, {} nodes, {} speaker pods",
                services.getStore().list().size(),
                nodes.getStore().list().size(),
                speakerPods.getStore().list().size());
        if (settings.peers().enabled()) {
            peers = PeerWatch.start(client, settings, fence, () -> queue.add(PLAN), registry, events);
        }
        queue.add(PLAN);
        worker = Thread.ofPlatform().name("speaker-reconcile").start(this::runQueue);
    }

    /**
     * The AddressConflicts this node reported before it restarted are probed again, so that they clear once the other
     * host leaves (they would only turn stale otherwise).
     */
    private void adoptConflicts() {
        try {
            addressConflicts = Optional.of(Watches.resilient(
                    AddressConflicts.CRD,
                    client.genericKubernetesResources(AddressConflicts.CONTEXT),
                    Informers.onAnyChange(any -> {})));
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            log.warn(
                    "cannot read {} (is the CRD installed?): {}; address conflicts are reported in Events and logs only",
                    AddressConflicts.CRD,
                    e.getMessage());
            return;
        }
        List<io.lbk8s.conflict.AddressConflict> mine = addressConflicts.get().getStore().list().stream()
                .map(AddressConflicts::toConflict)
                .flatMap(Optional::stream)
                .filter(c -> c.node().equals(settings.node()))
                .toList();
        conflicts.adopt(mine, Links.list());
    }

    /** The Service whose status shows {@code ip}, one this node announces it for first. */
    private Optional<Service> serviceHolding(IpAddress ip) {
        NodePlan.Announced announced = plan.announced().get(ip);
        if (announced != null && !announced.services().isEmpty()) {
            Optional<Service> led = service(announced.services().iterator().next());
            if (led.isPresent()) {
                return led;
            }
        }
        SharedIndexInformer<Service> informer = services;
        return informer == null
                ? Optional.empty()
                : informer.getStore().list().stream()
                        .filter(s -> ServiceMapping.statusIps(s).contains(ip))
                        .findFirst();
    }

    private Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(
            ResourceDefinitionContext context) {
        return watches.customResources(client, context, settings.configNamespace(), handler());
    }

    /**
     * A change the plan reads means: plan again. The plan is one key of the queue, so the changes that come while it
     * waits or runs are all answered by the next plan; a change the plan does not read ({@link PlanFacts}) plans
     * nothing.
     */
    private <T> ResourceEventHandler<T> handler() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T added) {
                changed(null, added);
            }

            @Override
            public void onUpdate(T before, T after) {
                changed(before, after);
            }

            @Override
            public void onDelete(T deleted, boolean finalStateUnknown) {
                changed(deleted, null);
            }
        };
    }

    private void changed(Object before, Object after) {
        // read again at the next plan whether or not this one plans: a Service that becomes planned later is planned
        // with its EndpointSlices as they are then
        reads.changed(after == null ? before : after);
        if (facts.changes(before, after)) {
            queue.add(PLAN);
        } else {
            metrics.changeIgnored((after == null ? before : after).getClass().getSimpleName());
        }
    }

    /** Whether the plan announces the Service "namespace/name" now (until the Services are watched: say yes). */
    private boolean plannedNow(String key) {
        SharedIndexInformer<Service> informer = services;
        if (informer == null) {
            return true;
        }
        Service service = informer.getStore().getByKey(key);
        return service != null && PlanFacts.planned(service, settings.lbClass());
    }

    public Readiness readiness() {
        if (stopping) {
            return new Readiness(false, "shutting down");
        }
        if (!synced) {
            return new Readiness(false, "informers not synced");
        }
        Optional<String> failure = announcer.failure();
        if (failure.isPresent()) {
            return new Readiness(false, "cannot answer ARP/NDP: " + failure.get());
        }
        // A broken watch is said, not made unready: the leader choice reads the speakers' readiness, and an API server
        // restart breaks every speaker's watches at once; unready speakers everywhere would withdraw every address.
        String watching = watches.down()
                .map(d -> "; not watching " + d + ": " + watches.whyDown())
                .orElse("");
        return new Readiness(
                true,
                "ready: announcing " + plan.announced().size() + " address(es) from node " + settings.node()
                        + peers.map(PeerWatch::readinessNote).orElse("") + watching);
    }

    /** Plans on each change, and after {@link #RELOOK} without one (which also bounds a failed plan's backoff). */
    private void runQueue() {
        new ReconcileLoop<>(queue, this::reconcileSafely, RELOOK, idle -> {
                    if (idle) {
                        queue.add(PLAN);
                    }
                })
                .run(() -> true);
    }

    private ReconcileResult reconcileSafely(String key) {
        if (stopping) {
            return ReconcileResult.DONE;
        }
        try {
            if (SESSIONS.equals(key)) {
                bgp.sessionsChanged();
            } else {
                reconcile();
            }
            return ReconcileResult.DONE;
        } catch (RuntimeException | IOException e) {
            log.error("planning announcements failed, will retry", e);
            return ReconcileResult.RETRY;
        }
    }

    private void reconcile() throws IOException {
        metrics.planned();
        readConfig();
        Set<String> withSpeaker =
                SpeakerMapping.nodesWithReadySpeaker(speakerPods.getStore().list());
        Optional<PeerWatch> watch = peers;
        Optional<Membership.Snapshot> heard = watch.map(
                w -> w.update(nodes.getStore().list(), speakerPods.getStore().list()));
        List<NodeState> nodeStates = nodes.getStore().list().stream()
                .map(n -> judged(n, withSpeaker, watch, heard))
                .toList();
        List<ServiceState> served = reads.read(source(services), source(endpointSlices));
        List<LinkInfo> links = Links.list();
        NodeNetwork network = NodeNetworkAnnotation.of(links, DefaultGateways.read(), settings.excludedInterfaces());
        nodeNetworkAnnotation.publish(network);
        Map<String, NodeNetwork> published = publishedNetworks();
        conflicts.speakerMacs(speakerMacs(links, published));
        NodePlan.Inputs inputs = new NodePlan.Inputs(
                settings.node(),
                config == null ? Config.EMPTY : config,
                served,
                nodeStates,
                new LeaderChoice.Options(settings.ignoreExcludeLabel()),
                links,
                settings.excludedInterfaces());
        NodePlan next = withhold(planCache.nodePlan(inputs), network, published);
        BgpPlan bgpPlan = planCache.bgpPlan(inputs, passwords.passwords(inputs.config()), passwords.unreadable());
        if (stopping) {
            return;
        }
        if (heard.map(h -> h.stalls() != stallsSeen).orElse(false)) {
            // This speaker was frozen or starved: its peers may have taken its addresses and clients moved to them.
            // What it still leads it announces afresh (probe, gratuitous ARP, status), as after a takeover.
            stallsSeen = heard.get().stalls();
            announcer.withdrawAll();
            plan = NodePlan.EMPTY;
            announcedServices = Map.of();
            statuses.rewriteAll();
            statusesStale = true;
            watch.get().stallHandled(heard.get());
        }
        Set<IpAddress> fromFailed = heard.filter(h -> planInputs != null)
                .map(h -> NodePlan.takenFromFailedNodes(planInputs, plan, next, h::failedSilently))
                .orElse(Set.of());
        announcer.apply(next, fromFailed);
        bgp.apply(bgpPlan, failedNodes(nodeStates));
        plan = next;
        planInputs = inputs;
        probeAhead(withSpeaker);
        // A speaker that hears none of its peers cannot tell a dead cluster from its own cut link: it reports nothing.
        // what users see (ServiceL2Status, Events, metrics) leaves out what another host makes this node withhold
        NodePlan shown = next.without(announcer.inConflict()).reporting(bgpPlan.problems());
        tellUsers(shown, heard.map(Membership.Snapshot::isolated).orElse(false), nodeStates);
        heard.ifPresent(h -> watch.get()
                .tellUsers(
                        h,
                        withSpeaker,
                        nodes.getStore().list().stream()
                                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n))));
    }

    /**
     * The informer's cache as {@link ServiceReads} reads it: each object rebuilt from its compact cache when it is read
     * and dropped after (a list of all 10,000 Services rebuilt at once was tens of MiB live, and with the 64 MiB heap
     * of the manifest's 256Mi limit each plan ran the collector full again and again).
     */
    private static <T> ServiceReads.Source<T> source(SharedIndexInformer<T> informer) {
        return new ServiceReads.Source<>(
                informer.getStore()::listKeys, key -> informer.getStore().getByKey(key));
    }

    /**
     * The speaker on the node whose name sorts first probes the pools' next addresses ({@link LookaheadProbes}), not
     * those taken (every Service's status addresses, as the plan read them, gathered only when a round starts); none
     * when probes are off ({@code --takeover-probe 0}).
     */
    private void probeAhead(Set<String> withSpeaker) {
        boolean first = withSpeaker.stream()
                .filter(n -> !n.equals(settings.node()))
                .noneMatch(n -> n.compareTo(settings.node()) < 0);
        if (!first || config == null || settings.takeoverProbe().isZero()) {
            return;
        }
        lookahead.maybeProbe(config.pools(), reads::taken);
    }

    /** What every speaker published on its Pod ({@link NodeNetwork#ANNOTATION}), by node. */
    private Map<String, NodeNetwork> publishedNetworks() {
        Map<String, NodeNetwork> published = new HashMap<>();
        for (Pod pod : speakerPods.getStore().list()) {
            Map<String, String> annotations = pod.getMetadata().getAnnotations();
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (annotations != null && node != null) {
                NodeNetwork.parse(annotations.get(NodeNetwork.ANNOTATION)).ifPresent(n -> published.put(node, n));
            }
        }
        return published;
    }

    /** Every speaker's MACs, and this node's own. */
    private static Set<MacAddress> speakerMacs(List<LinkInfo> links, Map<String, NodeNetwork> published) {
        Set<MacAddress> macs = new HashSet<>();
        links.stream().filter(l -> !l.loopback()).forEach(l -> macs.add(l.mac()));
        published.values().forEach(n -> n.macs().forEach(m -> macs.add(MacAddress.parse(m))));
        return macs;
    }

    /**
     * This node never answers for its own addresses, its gateways, or its subnets' network and broadcast addresses,
     * nor for another node's address (that node's kernel answers for it, with a speaker's MAC), even when the
     * controller assigned one: a Warning on the Service (and a log line once) says why.
     */
    private NodePlan withhold(NodePlan next, NodeNetwork network, Map<String, NodeNetwork> published) {
        Function<IpAddress, Optional<String>> refused = ip -> network.reserved(ip)
                .or(() -> published.entrySet().stream()
                        .filter(e -> !e.getKey().equals(settings.node())
                                && e.getValue().holds(ip))
                        .map(e -> ip + " is the address of node " + e.getKey())
                        .sorted()
                        .findFirst())
                .map(why -> why + "; lbk8s will not announce it from node " + settings.node());
        NodePlan kept = next.withheld(refused);
        Set<IpAddress> withheld = new HashSet<>(next.announced().keySet());
        withheld.removeAll(kept.announced().keySet());
        for (IpAddress ip : withheld) {
            if (!withheldWarned.contains(ip)) {
                log.warn("not announcing {}: {}", ip, refused.apply(ip).orElse(""));
            }
        }
        withheldWarned = withheld;
        return kept;
    }

    private void readConfig() {
        AcceptedConfig.Outcome outcome = accepted.accept(ConfigResources.sources(
                pools.map(i -> i.getStore().list()).orElse(List.of()),
                l2Advertisements.map(i -> i.getStore().list()).orElse(List.of()),
                Optional.ofNullable(configMaps
                        .getStore()
                        .getByKey(settings.configNamespace() + "/" + ConfigResources.CONFIG_MAP_NAME)),
                bgpConfig.objects()));
        accepted = outcome.next();
        config = outcome.result().config();
        String verdict = "configuration " + (outcome.result().valid() ? "valid" : "in use") + ": "
                + config.pools().size()
                + " pool(s), " + config.l2Advertisements().size() + " L2Advertisement(s)"
                + (outcome.result().valid()
                        ? ""
                        : "; refused, reported on their objects by the controller: "
                                + outcome.result().problems().stream()
                                        .filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                                        .map(ConfigProblem::toString)
                                        .toList());
        if (!verdict.equals(lastConfigVerdict)) {
            lastConfigVerdict = verdict;
            if (outcome.result().valid()) {
                log.info("{}", verdict);
            } else {
                log.error("{}", verdict);
            }
        }
    }

    private void tellUsers(NodePlan next, boolean isolated, List<NodeState> nodeStates) {
        Map<ServiceKey, Set<String>> now = next.interfacesByService();
        for (var entry : now.entrySet()) {
            if (!entry.getValue().equals(announcedServices.get(entry.getKey()))) {
                service(entry.getKey())
                        .ifPresent(s -> events.record(
                                s,
                                EventRecorder.Type.Normal,
                                "nodeAssigned",
                                "announcing from node " + settings.node() + " on "
                                        + describeInterfaces(next, entry.getKey())));
            }
        }
        for (ServiceKey gone : announcedServices.keySet()) {
            if (!now.containsKey(gone)) {
                log.info("no longer announcing {} from this node", gone);
                events.forget("Service", gone.namespace(), gone.name());
            }
        }
        Set<ServiceKey> warnedNow = new HashSet<>();
        for (NodePlan.Problem problem : isolated ? List.<NodePlan.Problem>of() : next.problems()) {
            warnedNow.add(problem.service());
            service(problem.service()).ifPresent(s -> {
                events.record(s, EventRecorder.Type.Warning, "NotAnnounced", problem.reason());
            });
        }
        for (ServiceKey solved : warnedServices) {
            if (!warnedNow.contains(solved)) {
                events.forget("Service", solved.namespace(), solved.name(), "NotAnnounced");
            }
        }
        warnedServices = warnedNow;
        if (statusesStale || !now.equals(announcedServices)) {
            // the objects a failed node left behind go; a live node's are its own to remove
            statuses.publish(now, failedNodes(nodeStates));
            statusesStale = false;
        }
        announcedServices = now;
        metrics.plan(next);
    }

    /** The nodes whose status objects the others remove: they could not remove their own. */
    private static Set<String> failedNodes(List<NodeState> nodeStates) {
        return nodeStates.stream().filter(Speaker::failed).map(NodeState::name).collect(Collectors.toSet());
    }

    private static boolean failed(NodeState node) {
        return !node.speakerReady() || !node.ready() || node.liveness() == Liveness.DEAD;
    }

    /**
     * Whether {@code node} has failed by what this speaker knows now (the API's copy and the failure detector's
     * latest view), for a status write that runs after the plan that named it failed.
     */
    private boolean failedNow(String node) {
        SharedIndexInformer<Node> nodeInformer = nodes;
        SharedIndexInformer<Pod> podInformer = speakerPods;
        Node object = nodeInformer == null ? null : nodeInformer.getStore().getByKey(node);
        if (object == null || podInformer == null) {
            return object == null;
        }
        Optional<PeerWatch> watch = peers;
        return failed(judged(
                object,
                SpeakerMapping.nodesWithReadySpeaker(podInformer.getStore().list()),
                watch,
                watch.map(PeerWatch::now)));
    }

    /** A node as the API shows it ({@code withSpeaker}: the nodes whose speaker is ready), with what the detector heard. */
    private static NodeState judged(
            Node node, Set<String> withSpeaker, Optional<PeerWatch> watch, Optional<Membership.Snapshot> heard) {
        NodeState state = SpeakerMapping.nodeState(node, withSpeaker);
        return heard.map(h -> state.withLiveness(watch.get().liveness(state.name(), h)))
                .orElse(state);
    }

    /** This node's Node object, where the BGP sessions' Events go. */
    private Optional<HasMetadata> nodeObject() {
        SharedIndexInformer<Node> informer = nodes;
        return informer == null
                ? Optional.empty()
                : Optional.ofNullable(informer.getStore().getByKey(settings.node()));
    }

    private static String describeInterfaces(NodePlan plan, ServiceKey service) {
        return plan.announced().values().stream()
                .filter(a -> a.services().contains(service))
                .flatMap(a -> a.links().stream())
                .distinct()
                .map(l -> "interface " + l.name() + " (" + l.mac() + ")")
                .reduce((a, b) -> a + ", " + b)
                .orElse("no interface");
    }

    private Optional<Service> service(ServiceKey key) {
        return Optional.ofNullable(services.getStore().getByKey(key.namespace() + "/" + key.name()));
    }

    /**
     * Graceful stop (SIGTERM): stop answering at once, tell the peers over the detector, then say so in the API by
     * marking this speaker's Pod not ready, so that every other speaker moves this node's addresses without waiting
     * for the kubelet.
     */
    public void shutdown() {
        stopping = true;
        announcer.withdrawAll();
        bgp.endSessions();
        log.info(
                "stopped answering for {} address(es); handing over",
                plan.announced().size());
        peers.ifPresent(PeerWatch::leave);
        markPodNotReady();
        statuses.withdraw(1_000);
        bgp.withdrawStatuses(1_000);
    }

    /**
     * A strategic merge patch of the Ready condition alone (merged by type, as the kubelet writes it): the cached Pod
     * holds only the fields the speaker reads ({@link io.lbk8s.kube.lean.LeanDecoding}), so it is never written back
     * whole. No resourceVersion: the patch changes that one condition whatever the Pod's version.
     */
    private void markPodNotReady() {
        if (settings.podName().isEmpty()) {
            return;
        }
        String name = settings.podName().get();
        Map<String, Object> notReady = Map.of(
                "type", "Ready",
                "status", "False",
                "reason", "SpeakerStopping",
                "message", "the speaker is shutting down and has stopped announcing",
                "lastTransitionTime",
                        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        try {
            OwnPod.resource(client, settings.podNamespace(), name)
                    .subresource("status")
                    .patch(
                            PatchContext.of(PatchType.STRATEGIC_MERGE),
                            client.getKubernetesSerialization()
                                    .asJson(Map.of("status", Map.of("conditions", List.of(notReady)))));
            log.info("marked pod {}/{} not ready", settings.podNamespace(), name);
        } catch (KubernetesClientException e) {
            log.warn(
                    "could not mark pod {}/{} not ready (the kubelet will): {}",
                    settings.podNamespace(),
                    name,
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        stopping = true;
        Thread w = worker;
        if (w != null) {
            w.interrupt();
        }
        watches.close();
        addressConflicts.ifPresent(SharedIndexInformer::close);
        peers.ifPresent(PeerWatch::close);
        lookahead.close();
        conflicts.close();
        announcer.close();
        bgp.close();
        passwords.close();
        nodeNetworkAnnotation.close();
        statuses.close();
        events.close();
    }
}

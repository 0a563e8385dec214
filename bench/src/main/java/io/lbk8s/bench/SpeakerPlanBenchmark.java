package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.Route;
import io.lbk8s.config.AcceptedConfig;
import io.lbk8s.config.Config;
import io.lbk8s.kube.CompactEndpointSliceStore;
import io.lbk8s.kube.CompactServiceStore;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.speaker.BgpPlan;
import io.lbk8s.speaker.EndpointState;
import io.lbk8s.speaker.InterfaceChoice;
import io.lbk8s.speaker.LeaderChoice;
import io.lbk8s.speaker.NodePlan;
import io.lbk8s.speaker.NodeState;
import io.lbk8s.speaker.PlanCache;
import io.lbk8s.speaker.ServiceReads;
import io.lbk8s.speaker.ServiceState;
import io.lbk8s.speaker.SpeakerMapping;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The speaker's plan at many Services, without a cluster or a router: what {@code Speaker#reconcile} reads (Services
 * with their status addresses and their EndpointSlices, kept in the speaker's compact caches; 3 Nodes with a ready
 * speaker each; a pool, an L2Advertisement, a BGPPeer with BFD and a BGPAdvertisement), and the time of each of its
 * pure steps, in the order reconcile runs them, as node-1 (the node that also probes the pools ahead).
 *
 * <p>Three cases at each count: plans with nothing changed since the one before; plans each after one more Service was
 * created (with its EndpointSlice), the common case while thousands are advertised; plans each after node-3 turned
 * not Ready or Ready again, a change every Service's decision reads. The speaker plans incrementally ({@link
 * ServiceReads} reads only what a watch event named, {@link PlanCache} decides again only for the Services that
 * changed); with {@code --from-scratch} every plan reads and decides for every Service, as the speaker did before.
 *
 * <p>Usage: {@code SpeakerPlanBenchmark [--from-scratch] [COUNT...]} (default 1000 10000). Run it with the speaker's own JVM flags
 * (the distribution's: C1 only, serial GC; the manifest's heap) to see what a deployed speaker spends:
 * <pre>
 *   java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx64m -cp bench/target/classes:$(cat bench/target/classpath.txt) \
 *       io.lbk8s.bench.SpeakerPlanBenchmark
 * </pre>
 */
public final class SpeakerPlanBenchmark {
    private static final String NODE = "node-1";
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    private static final String POOL = "198.19.64.0/18";
    private static final String NS = "metallb-system";
    private static final int WARMUP_PLANS = 20;
    private static final int MEASURED_PLANS = 15;
    private static final ThreadMXBean THREAD = ManagementFactory.getThreadMXBean();

    private SpeakerPlanBenchmark() {}

    public static void main(String[] args) throws Exception {
        boolean fromScratch = Arrays.asList(args).contains("--from-scratch");
        List<Integer> counts = Arrays.stream(args)
                .filter(a -> !a.startsWith("--"))
                .map(Integer::parseInt)
                .toList();
        System.out.println("| component | figure | value |");
        System.out.println("|---|---|---|");
        for (int count : counts.isEmpty() ? List.of(1_000, 10_000) : counts) {
            for (Change change : Change.values()) {
                new Run(count, fromScratch).measure(change);
            }
        }
    }

    /** What changes before each plan. */
    private enum Change {
        NOTHING("nothing changed"),
        ONE_SERVICE_CREATED("one Service created"),
        NODE_FAILS_OR_RETURNS("node-3 not Ready / Ready again");

        private final String description;

        Change(String description) {
            this.description = description;
        }
    }

    /** One cluster of {@code count} Services and the speaker's state between its plans. */
    private static final class Run {
        private final int count;
        private final boolean fromScratch;
        private final ServiceReads reads = new ServiceReads(Optional.empty());
        private final PlanCache planCache = new PlanCache();
        private int created;
        private final CompactServiceStore services = new CompactServiceStore();
        private final CompactEndpointSliceStore slices = new CompactEndpointSliceStore();
        private final List<Node> nodes = new ArrayList<>();
        private final List<Pod> pods = new ArrayList<>();
        private final List<GenericKubernetesResource> pools;
        private final List<GenericKubernetesResource> l2Advertisements;
        private final ConfigResources.BgpObjects bgp;
        private final List<LinkInfo> links = List.of(new LinkInfo(
                "eth0",
                2,
                MacAddress.parse("02:00:00:00:00:01"),
                true,
                false,
                Optional.empty(),
                List.of(new LinkAddress(IpAddress.parse("198.19.0.1").orElseThrow(), 16))));
        private final Map<String, List<Long>> nanos = new LinkedHashMap<>();
        private final Map<String, List<Long>> wall = new LinkedHashMap<>();

        private AcceptedConfig accepted = AcceptedConfig.NONE;
        private NodePlan.Inputs previousInputs;
        private NodePlan previousPlan = NodePlan.EMPTY;
        private Map<String, Set<Route>> sent = Map.of();
        private Map<ServiceKey, Set<String>> announcedServices = Map.of();

        Run(int count, boolean fromScratch) {
            this.count = count;
            this.fromScratch = fromScratch;
            IpAddress first = IpAddress.parse("198.19.64.0").orElseThrow();
            for (int i = 0; i < count; i++) {
                String name = "bulk-" + i;
                String ip = first.plus(i + 1).orElseThrow().toString();
                services.put("default/" + name, service(name, ip));
                slices.put("default/" + name + "-abcde", slice(name, NODES.get(i % NODES.size())));
            }
            for (String node : NODES) {
                nodes.add(node(node));
                pods.add(speakerPod(node));
            }
            pools = List.of(object("IPAddressPool", "bulk", "{addresses: ['" + POOL + "']}"));
            l2Advertisements = List.of(object("L2Advertisement", "l2", "{ipAddressPools: [bulk]}"));
            bgp = new ConfigResources.BgpObjects(
                    List.of(object(
                            "BGPPeer",
                            "router",
                            "{myASN: 64512, peerASN: 64500, peerAddress: '198.19.0.254', bfdProfile: fast,"
                                    + " holdTime: 90s}")),
                    List.of(object("BGPAdvertisement", "bgp", "{ipAddressPools: [bulk]}")),
                    List.of(),
                    List.of(object(
                            "BFDProfile",
                            "fast",
                            "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}")));
        }

        void measure(Change change) throws Exception {
            for (int i = 0; i < WARMUP_PLANS; i++) {
                change(change);
                plan();
            }
            nanos.clear();
            wall.clear();
            for (int i = 0; i < MEASURED_PLANS; i++) {
                change(change);
                plan();
            }
            String at = String.format(
                    Locale.ROOT,
                    "%,d Services, %s, %s",
                    count,
                    change.description,
                    fromScratch ? "from scratch" : "incremental");
            String load = Files.readString(Path.of("/proc/loadavg")).trim();
            nanos.forEach((step, times) -> row("plan at " + at + ": " + step + " (CPU)", times));
            row("plan at " + at + ": the whole plan (CPU; load " + load + ")", totals(nanos));
            row("plan at " + at + ": the whole plan (wall clock, with GC pauses)", totals(wall));
            if (!fromScratch) {
                boolean same = previousPlan.equals(NodePlan.compute(previousInputs))
                        && sent.equals(BgpPlan.compute(previousInputs, Map.of(), Map.of())
                                .routes());
                System.out.println(
                        "| speaker plan | at " + at + ": the last plan equals the plan from scratch | " + same + " |");
            }
            if (!fromScratch && change == Change.NOTHING) {
                List<Long> gathered = new ArrayList<>();
                for (int i = 0; i < MEASURED_PLANS; i++) {
                    long start = THREAD.getCurrentThreadCpuTime();
                    reads.taken();
                    gathered.add(THREAD.getCurrentThreadCpuTime() - start);
                }
                row(
                        "at " + at + ": the look-ahead probes' taken addresses, gathered when a round starts (every"
                                + " 10 s), not in the plan (CPU)",
                        gathered);
            }
            System.out.println("| speaker plan | announced from " + NODE + " at " + at + " (layer 2 / BGP routes) | "
                    + previousPlan.announced().size() + " / "
                    + sent.values().stream().mapToInt(Set::size).sum() + " |");
        }

        /** The change before a plan, in the caches and as the informers' handlers tell it ({@code Speaker#changed}). */
        private void change(Change change) {
            switch (change) {
                case NOTHING -> {}
                case ONE_SERVICE_CREATED -> {
                    int i = count + created++;
                    String name = "bulk-" + i;
                    Service service = service(
                            name,
                            IpAddress.parse("198.19.64.0")
                                    .orElseThrow()
                                    .plus(i + 1)
                                    .orElseThrow()
                                    .toString());
                    EndpointSlice slice = slice(name, NODES.get(i % NODES.size()));
                    slices.put("default/" + name + "-abcde", slice);
                    reads.changed(slice);
                    services.put("default/" + name, service);
                    reads.changed(service);
                }
                case NODE_FAILS_OR_RETURNS -> {
                    Node node3 = nodes.get(2);
                    boolean ready = node3.getStatus()
                            .getConditions()
                            .getFirst()
                            .getStatus()
                            .equals("True");
                    nodes.set(2, node(node3.getMetadata().getName(), !ready));
                }
            }
        }

        /** What {@code Speaker#reconcile} computes, step by step, each step timed. */
        private void plan() {
            Config config = time("read the configuration", () -> {
                AcceptedConfig.Outcome outcome =
                        accepted.accept(ConfigResources.sources(pools, l2Advertisements, Optional.empty(), bgp));
                accepted = outcome.next();
                if (!outcome.result().valid()) {
                    throw new IllegalStateException(
                            "configuration refused: " + outcome.result().problems());
                }
                return outcome.result().config();
            });
            Set<String> withSpeaker = time("speaker Pods -> nodes", () -> SpeakerMapping.nodesWithReadySpeaker(pods));
            List<NodeState> nodeStates = time(
                    "Nodes -> NodeState",
                    () -> nodes.stream()
                            .map(n -> SpeakerMapping.nodeState(n, withSpeaker))
                            .toList());
            List<ServiceState> served = fromScratch ? readWhole() : readChanged();
            NodePlan.Inputs inputs = new NodePlan.Inputs(
                    NODE,
                    config,
                    served,
                    nodeStates,
                    LeaderChoice.Options.DEFAULT,
                    links,
                    InterfaceChoice.DEFAULT_EXCLUDED);
            NodePlan next = fromScratch
                    ? time("NodePlan.compute", () -> NodePlan.compute(inputs))
                    : time("NodePlan (PlanCache)", () -> planCache.nodePlan(inputs));
            BgpPlan bgpPlan = fromScratch
                    ? time("BgpPlan.compute", () -> BgpPlan.compute(inputs, Map.of(), Map.of()))
                    : time("BgpPlan (PlanCache)", () -> planCache.bgpPlan(inputs, Map.of(), Map.of()));
            // a plan after new Services looks up which of its new addresses a failed node led before
            NodePlan before = previousPlan;
            NodePlan.Inputs beforeInputs = previousInputs == null ? inputs : previousInputs;
            time(
                    "takenFromFailedNodes (new addresses)",
                    () -> NodePlan.takenFromFailedNodes(
                            beforeInputs,
                            before.announced().isEmpty() ? NodePlan.EMPTY : withoutOne(before),
                            next,
                            n -> false));
            time("BGP routes and statuses diffed (BgpAdvertiser)", () -> {
                bgpPlan.routes().forEach((peer, routes) -> routes.equals(sent.get(peer)));
                sent = bgpPlan.routes();
                return Map.copyOf(bgpPlan.services());
            });
            time("what users see (tellUsers)", () -> {
                NodePlan shown = next.without(Set.of()).reporting(bgpPlan.problems());
                Map<ServiceKey, Set<String>> now = shown.interfacesByService();
                boolean changed = !now.equals(announcedServices);
                announcedServices = now;
                return changed;
            });
            previousPlan = next;
            previousInputs = inputs;
        }

        /**
         * Every Service and EndpointSlice read, as the speaker did before it read incrementally: each object rebuilt
         * when the plan comes to it, then dropped; the look-ahead probes' taken addresses in the same pass.
         */
        private List<ServiceState> readWhole() {
            Collection<EndpointSlice> sliceList = oneAtATime(slices);
            Map<String, List<EndpointState>> endpoints = time(
                    "EndpointSlices rebuilt -> endpointsByService", () -> SpeakerMapping.endpointsByService(sliceList));
            Collection<Service> serviceList = oneAtATime(services);
            return time(
                            "Services rebuilt and read (planned ones -> ServiceState, every status address)",
                            () -> SpeakerMapping.read(serviceList, Optional.empty(), endpoints))
                    .planned();
        }

        /** The Services and EndpointSlices named since the last plan read ({@link ServiceReads}). */
        private List<ServiceState> readChanged() {
            return time(
                    "Services and EndpointSlices named since read (ServiceReads)",
                    () -> reads.read(source(services), source(slices)));
        }

        private static <T extends HasMetadata> ServiceReads.Source<T> source(ItemStore<T> store) {
            return new ServiceReads.Source<>(() -> store.keySet().toList(), store::get);
        }

        /** The cache's objects, each rebuilt as it is iterated (what {@code Speaker} hands the plan). */
        private static <T extends HasMetadata> Collection<T> oneAtATime(ItemStore<T> store) {
            List<String> keys = store.keySet().toList();
            return new AbstractCollection<>() {
                @Override
                public Iterator<T> iterator() {
                    return keys.stream().map(store::get).iterator();
                }

                @Override
                public int size() {
                    return keys.size();
                }
            };
        }

        /** The plan with one address fewer: the next plan takes one address anew, as after a new Service. */
        private static NodePlan withoutOne(NodePlan plan) {
            return plan.without(Set.of(plan.announced().keySet().iterator().next()));
        }

        /** Runs a step and keeps its time on this thread's CPU: other processes on the machine do not count. */
        private <T> T time(String step, Supplier<T> work) {
            long start = THREAD.getCurrentThreadCpuTime();
            long wallStart = System.nanoTime();
            T result = work.get();
            nanos.computeIfAbsent(step, k -> new ArrayList<>()).add(THREAD.getCurrentThreadCpuTime() - start);
            wall.computeIfAbsent(step, k -> new ArrayList<>()).add(System.nanoTime() - wallStart);
            return result;
        }

        private static List<Long> totals(Map<String, List<Long>> steps) {
            List<Long> totals = new ArrayList<>();
            for (int i = 0; i < MEASURED_PLANS; i++) {
                long sum = 0;
                for (List<Long> times : steps.values()) {
                    sum += times.get(i);
                }
                totals.add(sum);
            }
            return totals;
        }
    }

    private static void row(String figure, List<Long> times) {
        long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(
                Locale.ROOT,
                "| speaker plan | %s, median / max of %d plans | %.2f / %.2f ms |%n",
                figure,
                sorted.length,
                sorted[sorted.length / 2] / 1e6,
                sorted[sorted.length - 1] / 1e6);
    }

    /** A LoadBalancer Service of the bulk pool with the status the controller writes: {@code ip} in its ingress. */
    private static Service service(String name, String ip) {
        return new ServiceBuilder(ControllerBenchmark.service(name))
                .editMetadata()
                .withUid("uid-" + name)
                .withResourceVersion("1")
                .withAnnotations(Map.of("metallb.io/address-pool", "bulk"))
                .endMetadata()
                .editSpec()
                .withSelector(Map.of("app", "bulk"))
                .withExternalTrafficPolicy("Cluster")
                .endSpec()
                .withNewStatus()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .withIpMode("VIP")
                .endIngress()
                .endLoadBalancer()
                .endStatus()
                .build();
    }

    /** The Service's EndpointSlice: one ready Pod on {@code node}. */
    private static EndpointSlice slice(String service, String node) {
        return new EndpointSliceBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName(service + "-abcde")
                .withUid("uid-slice-" + service)
                .withResourceVersion("1")
                .withLabels(Map.of(ObjectFacts.SERVICE_NAME_LABEL, service))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.0.1")
                .withNodeName(node)
                .withNewConditions(true, true, false)
                .endEndpoint()
                .build();
    }

    private static Node node(String name) {
        return node(name, true);
    }

    private static Node node(String name, boolean ready) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("kubernetes.io/hostname", name))
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    private static Pod speakerPod(String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName("speaker-" + node)
                .withLabels(Map.of("app", "lbk8s", "component", "speaker"))
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
    }

    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    /** A metallb.io object as kubectl would create it (the sandbox's {@code createMetallb}), version 1. */
    private static GenericKubernetesResource object(String kind, String name, String specYaml) {
        String version = kind.equals("BGPPeer") ? "v1beta2" : "v1beta1";
        GenericKubernetesResource resource = YAML.unmarshal(
                "apiVersion: metallb.io/" + version + "\nkind: " + kind + "\nmetadata: {name: " + name
                        + ", namespace: " + NS + ", resourceVersion: '1', uid: uid-" + name + "}\nspec: " + specYaml
                        + "\n",
                GenericKubernetesResource.class);
        return resource;
    }
}

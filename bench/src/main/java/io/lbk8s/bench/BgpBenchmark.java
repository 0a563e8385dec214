package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.lbk8s.address.IpAddress;
import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.FibRoute;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * BGP mode's figures on the namespace network with FRR 8.4 as the upstream router (not a test), the roles run as
 * deployed ({@link BgpPhases#launcher}): Service created -> its route in the router's kernel routing table (FIB), a
 * frozen node's next hop gone from it with BFD at 300 ms x 3, and one speaker advertising 10,000 Services: the time
 * until the router holds them all, the speaker's RSS, the full table to a new FRR peer, and then Services created while
 * it runs: how fast they reach the router. Prints markdown table rows.
 * Usage: {@code BgpBenchmark DIST_DIR [--quick] [--latency-only | --many-only]} (--quick: 20 Services, 2 freezes,
 * 1,000 Services for the table; --latency-only: without the 10,000 Services, e.g. to compare two distributions' first
 * Service; --many-only: the 10,000 Services alone, e.g. to compare two distributions' memory).
 */
public final class BgpBenchmark {
    private static final long ROUTER_AS = 64500;
    private static final long NODE_AS = 64512;
    private static final Duration SOON = Duration.ofSeconds(30);
    /** How long a speaker runs idle, or after the router has its table, before its memory is read. */
    private static final Duration SETTLE = Duration.ofSeconds(15);
    /** The latency Services' addresses: BGP needs them on no interface, and the network's own pool holds 51. */
    private static final String LATENCY_POOL = "198.19.60.0/22";
    /** The many Services' addresses: 16,384, outside the test network's 198.18.0.0/16. */
    private static final String BULK_POOL = "198.19.64.0/18";

    private final Sandbox sandbox;
    private final TestNetwork network;
    private final UpstreamRouter router;

    private BgpBenchmark(Sandbox sandbox) throws java.io.IOException {
        this.sandbox = sandbox;
        this.network = sandbox.network;
        this.router = network.router();
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args[0]);
        boolean quick = List.of(args).contains("--quick");
        boolean latencyOnly = List.of(args).contains("--latency-only");
        boolean manyOnly = List.of(args).contains("--many-only");
        if (!Files.isRegularFile(dist.resolve("lbk8s.aot"))) {
            throw new IllegalArgumentException(dist + " is not a distribution tree with its AOT cache (build dist)");
        }
        var missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            System.out.println("| speaker (BGP) | BGP figures | not measured: " + missing.get() + " |");
            return;
        }
        Path logs = Files.createTempDirectory("lbk8s-bgp-bench");
        boolean measured = false;
        try {
            if (!manyOnly) {
                latency(logs, dist, quick);
            } else {
                row(
                        "speaker (BGP)",
                        "how the figures below were taken",
                        BgpPhases.howLaunched() + " (no controller, INFO); load " + load());
            }
            if (!latencyOnly) {
                Path many = Files.createDirectories(logs.resolve("many"));
                try (Sandbox sandbox = Sandbox.start(
                        many, 1, noController(many), BgpPhases.launcher(many, dist, "speaker", false), List.of())) {
                    BgpBenchmark bench = new BgpBenchmark(sandbox);
                    bench.configure();
                    bench.idleMemory();
                    bench.manyServices(quick ? 1_000 : 10_000, dist);
                }
            }
            row("speaker (BGP)", "load averages (1 / 5 / 15 min) at the end", load());
            measured = true;
        } finally {
            if (measured && !Boolean.getBoolean("bench.keepLogs")) {
                L2Benchmark.deleteTree(logs);
            } else {
                System.err.println("the sandboxes' logs are in " + logs + (measured ? "" : " (BgpBenchmark failed)"));
            }
        }
    }

    /** The latency figures: Service created -> route, and a frozen node's next hop gone, on three nodes. */
    private static void latency(Path logs, Path dist, boolean quick) throws Exception {
        try (Sandbox sandbox = Sandbox.start(
                logs.resolve("latency"),
                TestNetwork.DEFAULT_NODE_COUNT,
                BgpPhases.launcher(logs, dist, "controller", false),
                BgpPhases.launcher(logs, dist, "speaker", true),
                List.of())) {
            row(
                    "speaker (BGP)",
                    "how the figures below were taken",
                    BgpPhases.howLaunched() + " (in the 10,000-Service rows: no controller, INFO); load " + load());
            BgpBenchmark bench = new BgpBenchmark(sandbox);
            bench.configure();
            bench.serviceToRoute(quick ? 20 : 200);
            bench.frozenNode(quick ? 2 : 5);
        }
    }

    /** The sandbox's controller replaced by a process that does nothing: the benchmark writes the Services' status. */
    private static Path noController(Path directory) throws java.io.IOException {
        Path launcher = directory.resolve("no-controller");
        Files.writeString(launcher, "#!/bin/sh\nexec sleep 86400\n");
        if (!launcher.toFile().setExecutable(true)) {
            throw new java.io.IOException("cannot make " + launcher + " executable");
        }
        return launcher;
    }

    /**
     * BgpIT's setup: MetalLB's objects for one FRR peer with BFD at 300 ms x 3, one BGPAdvertisement for two pools
     * (the latency Services' and the many Services').
     */
    private void configure() throws InterruptedException {
        sandbox.createMetallb(
                "BFDProfile", "fast", "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        sandbox.createMetallb(
                "BGPPeer",
                "router",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '" + text(router.ipv4())
                        + "', bfdProfile: fast, holdTime: 90s}");
        sandbox.createMetallb("IPAddressPool", "bgp", "{addresses: ['" + LATENCY_POOL + "']}");
        sandbox.createMetallb("IPAddressPool", "bulk", "{addresses: ['" + BULK_POOL + "']}");
        sandbox.createMetallb("BGPAdvertisement", "bgp", "{ipAddressPools: [bgp, bulk]}");
        FrrRouter frr = (FrrRouter) router.start(RouterKind.FRR, routerConfig(network.nodes()));
        for (TestNode node : network.nodes()) {
            frr.awaitEstablished(node.ipv4(), SOON);
        }
        // A ClusterIP Service with its EndpointSlice before the first measured one, as every cluster has (its
        // "kubernetes" Service): no lbk8s role writes anything for it, but the test API server's Service and
        // EndpointSlice paths and the sandbox's EndpointSlice writer run once, so that the first measured Service does
        // not pay for their first use (the writer's first slice came 100-200 ms after the Service's ADDED event).
        createService("cluster-ip", null, Map.of(), "cluster-ip");
        Sandbox.poll(
                "the ClusterIP Service's EndpointSlice",
                SOON,
                () -> !sandbox.client
                        .discovery()
                        .v1()
                        .endpointSlices()
                        .inNamespace("default")
                        .withLabel("kubernetes.io/service-name", "cluster-ip")
                        .list()
                        .getItems()
                        .isEmpty());
        // settled before the first Service: BFD Up too, and the speakers' BGPSessionState writes that follow it done
        Sandbox.poll(
                "the router's BFD sessions with every node Up",
                SOON,
                () -> frr.bfdPeers().stream().filter(RouterBfdPeer::up).count()
                        == network.nodes().size());
        Thread.sleep(2_000);
    }

    private RouterConfig routerConfig(List<TestNode> nodes) {
        return RouterConfig.of(
                ROUTER_AS,
                router.ipv4(),
                nodes.stream()
                        .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT))
                        .toList());
    }

    /** The first node's speaker with its session and BFD up and no Service yet. */
    private void idleMemory() throws Exception {
        Thread.sleep(SETTLE);
        TestNode first = network.nodes().getFirst();
        row(
                "speaker (BGP)",
                "speaker RSS idle: 0 Services, one peer Established with BFD (" + SETTLE.toSeconds() + " s after)",
                ProcessMemory.of(javaIn(sandbox.speaker(first).process())).describe());
    }

    /**
     * Each Service asks for its address (metallb.io/loadBalancerIPs) so that the router's FIB can be watched for it
     * from the moment of the create call; the clock stops when the kernel's routing table in the router's namespace
     * first has a route for it, whichever node's it is, as {@code ip -ts monitor route} stamps the kernel's
     * notification. The benchmark confirms each with {@code ip route} and waits for all 3 next hops before the next
     * Service, so that one Service's work does not overlap the next one's. {@link BgpPhases} says where the time went.
     * The first Service after start is counted, and also reported alone: the roles run its code for the first time.
     */
    private void serviceToRoute(int count) throws java.io.IOException {
        List<Long> micros = new ArrayList<>();
        List<Long> allNodes = new ArrayList<>();
        FrrRouter frr = (FrrRouter) router.running().orElseThrow();
        try (BgpPhases phases = BgpPhases.start(sandbox, frr)) {
            double[] queuesBefore = phases.speakerQueues();
            double[] controllerBefore = phases.controllerQueue();
            double plansBefore = speakerPlans();
            for (int i = 0; i < count; i++) {
                String name = "bgp-" + i;
                String ip = latencyAddress(i);
                String prefix = ip + "/32";
                long start = Sandbox.nowMicros();
                phases.created(name, prefix, start);
                createService(name, ip, "bgp");
                awaitFib(phases, prefix, r -> !r.isEmpty(), Duration.ofSeconds(10));
                long seen = Sandbox.nowMicros();
                phases.benchSaw(name, seen);
                // ip monitor's line may come a little after ip route saw the route (the 200 ms look finds it first)
                micros.add(phases.kernelAdded(prefix, Duration.ofSeconds(1)).orElse(seen) - start);
                awaitFib(
                        phases,
                        prefix,
                        r -> r.size() == 1 && r.getFirst().nextHops().size() == 3,
                        Duration.ofSeconds(10));
                allNodes.add(Sandbox.nowMicros() - start);
            }
            row(
                    "speaker (BGP)",
                    "Service created -> route in FRR's FIB p50 / p99 / max (" + count
                            + " Services, the first after start included; load " + load() + ")",
                    ConflictBenchmark.percentiles(micros));
            row(
                    "speaker (BGP)",
                    "same, the first Service after start alone (its phases, as the phase rows below: "
                            + phases.timeline("bgp-0") + ")",
                    micros.getFirst() / 1000 + " ms");
            row(
                    "speaker (BGP)",
                    "same, Services 2 to " + count + " p50 / p99 / max",
                    ConflictBenchmark.percentiles(micros.subList(1, count)));
            row(
                    "speaker (BGP)",
                    "Service created -> FIB route over all 3 nodes (ECMP) p50 / p99 / max",
                    ConflictBenchmark.percentiles(allNodes));
            for (String[] phase : phases.rows()) {
                row("speaker (BGP)", phase[0], phase[1]);
            }
            queueRow("speakers' (3 nodes)", queuesBefore, phases.speakerQueues(), count);
            row(
                    "speaker (BGP)",
                    "speakers' (3 nodes) plans per Service (lbk8s_speaker_plans_total; a speaker without it: -)",
                    plansBefore < 0 ? "-" : String.format(Locale.ROOT, "%.1f", (speakerPlans() - plansBefore) / count));
            queueRow("the controller's", controllerBefore, phases.controllerQueue(), count);
        }
    }

    /** The plans the sandbox's speakers have made (lbk8s_speaker_plans_total summed), or -1 if none exports it. */
    private double speakerPlans() {
        double sum = -1;
        for (TestNode node : network.nodes()) {
            double plans = counter(sandbox.metrics(node).orElse(""), "lbk8s_speaker_plans_total");
            if (plans >= 0) {
                sum = Math.max(sum, 0) + plans;
            }
        }
        return sum;
    }

    /** A counter without labels in a /metrics text, or -1 if it has none. */
    private static double counter(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    /** Reconciles per Service of a work queue between two readings, and each one's mean wait and work. */
    private static void queueRow(String whose, double[] before, double[] after, int services) {
        double reconciles = after[0] - before[0];
        row(
                "speaker (BGP)",
                whose + " reconciles per Service, each one's mean wait in the queue / work",
                String.format(
                        Locale.ROOT,
                        "%.1f / %.1f ms / %.1f ms",
                        reconciles / services,
                        (after[1] - before[1]) * 1000 / reconciles,
                        (after[2] - before[2]) * 1000 / reconciles));
    }

    /** A node's processes stopped (SIGSTOP), as a hung node: the time until its next hop leaves the router's FIB. */
    private void frozenNode(int trials) {
        String prefix = latencyAddress(0) + "/32";
        FrrRouter frr = (FrrRouter) router.running().orElseThrow();
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < trials; i++) {
            TestNode victim = network.nodes().get(i % network.nodes().size());
            awaitFib(prefix, r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, SOON);
            Sandbox.poll(
                    "the router's BFD sessions with the three nodes Up",
                    SOON,
                    () -> frr.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);
            long start = System.nanoTime();
            network.freeze(victim);
            try {
                awaitFib(
                        prefix,
                        r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                        Duration.ofSeconds(10));
                micros.add((System.nanoTime() - start) / 1000);
            } finally {
                network.thaw(victim);
            }
        }
        List<Long> sorted = micros.stream().sorted().toList();
        row(
                "speaker (BGP)",
                "node frozen -> its next hop gone from FRR's FIB, BFD 300 ms x 3, p50 / max (" + trials + " freezes)",
                String.format(
                        Locale.ROOT,
                        "%.0f ms / %.0f ms",
                        sorted.get(sorted.size() / 2) / 1000.0,
                        sorted.getLast() / 1000.0));
    }

    /**
     * One speaker (a one-node sandbox, no controller) advertising {@code count} Services to the router. The Services
     * are written with their status already set, as the controller would (their EndpointSlices by the sandbox), while
     * the speaker is stopped; then it starts, and the clock runs until FRR counts all their routes (pfxRcd): what a
     * restarted speaker does. Writing 10,000 Services one by one while it runs would measure the test API server and
     * the controller more than the speaker. Then that speaker's RSS, and the full table to a new peer: FRR restarted,
     * Established -> pfxRcd complete, both seen by polling.
     */
    private void manyServices(int count, Path dist) throws Exception {
        TestNode node = network.nodes().getFirst();
        sandbox.speaker(node).stop(Duration.ofSeconds(10));
        sandbox.setSpeakerPodReady(node, false);
        long start = System.nanoTime();
        writeAssigned("bulk-", 0, count);
        Sandbox.poll(
                "the sandbox to write " + count + " EndpointSlices",
                Duration.ofMinutes(10),
                () -> sandbox.client
                                .discovery()
                                .v1()
                                .endpointSlices()
                                .inNamespace("default")
                                .list()
                                .getItems()
                                .size()
                        >= count);
        String what = String.format(Locale.ROOT, "%,d Services", count);
        row(
                "speaker (BGP)",
                what + " written with their status (8 threads) and their EndpointSlices, the speaker stopped",
                Math.round((System.nanoTime() - start) / 1e9) + " s");
        FrrRouter frr = (FrrRouter) router.running().orElseThrow();
        long limit = DeployedRolesBenchmark.Deployed.of("speaker").limitBytes();
        start = System.nanoTime();
        sandbox.startSpeaker(node);
        try {
            sandbox.awaitSpeakerReadyAndMarkPod(node);
        } catch (IllegalStateException exited) {
            // with the manifest's limit the speaker may not hold them all: said, and measured with twice the limit
            row(
                    "speaker (BGP)",
                    "speaker started with " + what + " waiting, the manifest's memory limit (" + limit / 1024 / 1024
                            + " MiB)",
                    "exited: "
                            + (sandbox.speaker(node).logTail(200).contains("OutOfMemoryError")
                                    ? "java.lang.OutOfMemoryError: Java heap space"
                                    : exited.getMessage().lines().findFirst().orElse("")));
            limit *= 2;
            BgpPhases.launcher(sandbox.logs, dist, "speaker", false, limit);
            sandbox.setSpeakerPodReady(node, false);
            start = System.nanoTime();
            sandbox.startSpeaker(node);
            sandbox.awaitSpeakerReadyAndMarkPod(node);
        }
        what += " (memory limit " + limit / 1024 / 1024 + " MiB)";
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (peer(frr, node).received() < count && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        if (peer(frr, node).received() < count) {
            row("speaker (BGP)", "speaker started -> " + what + " on the router", "not reached: " + peer(frr, node));
            return;
        }
        row(
                "speaker (BGP)",
                "speaker started with " + what + " waiting -> FRR counts all their routes (pfxRcd; load " + load()
                        + ")",
                String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - start) / 1e9));
        Thread.sleep(SETTLE);
        Process speaker = sandbox.speaker(node).process();
        row(
                "speaker (BGP)",
                "speaker RSS advertising " + what + " to one peer with BFD (" + SETTLE.toSeconds()
                        + " s after the router had them all)",
                ProcessMemory.of(javaIn(speaker)).describe());
        frr.close();
        FrrRouter fresh = router.startFrr(routerConfig(List.of(node)));
        // the look that first sees the session may find the whole table: then the look before bounds the time
        Long established = null;
        boolean sameLook = false;
        long lookBefore = System.nanoTime();
        deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            long look = System.nanoTime();
            Peer now = peer(fresh, node);
            // a route counted means the session is up, if a look fell between Established and the first UPDATE
            if (established == null && (now.established() || now.received() > 0)) {
                established = look;
                sameLook = now.received() >= count;
            }
            if (now.received() >= count) {
                break;
            }
            if (established == null) {
                lookBefore = look;
            }
            Thread.sleep(20);
        }
        long end = System.nanoTime();
        String table = String.format(Locale.ROOT, "full table of %,d routes to a new FRR peer", count);
        if (established == null || peer(fresh, node).received() < count) {
            row("speaker (BGP)", table, "not reached: " + peer(fresh, node));
            return;
        }
        row(
                "speaker (BGP)",
                table + " (FRR restarted; Established -> pfxRcd complete, vtysh polled every 20 ms)",
                sameLook
                        ? "under " + (end - lookBefore) / 1_000_000 + " ms (the first look at the Established session"
                                + " counted them all; the bound is from the look before, not yet Established)"
                        : (end - established) / 1_000_000 + " ms");
        row(
                "speaker (BGP)",
                "speaker RSS after sending that table",
                ProcessMemory.of(javaIn(speaker)).describe());
        servicesWhileRunning(fresh, node, count, Math.max(200, count / 20));
    }

    /**
     * {@code more} Services created while the speaker advertises {@code advertised}, written as {@link #manyServices}
     * writes them (their status set, 8 threads): the time from the first create to FRR counting all their routes, the
     * rate, and the speaker's plans meanwhile from its /metrics (the work queue's reconciles, which a speaker without
     * lbk8s_speaker_plans_total also exports; they include its BGP sessions' status reports).
     */
    private void servicesWhileRunning(FrrRouter frr, TestNode node, int advertised, int more) throws Exception {
        String before = sandbox.metrics(node).orElse("");
        long start = System.nanoTime();
        writeAssigned("more-", advertised, more);
        double written = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (peer(frr, node).received() < advertised + more && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String what = String.format(
                Locale.ROOT,
                "%,d Services created while the speaker advertises %,d (status set, 8 threads) -> FRR counts all their"
                        + " routes (vtysh polled every 50 ms; load %s)",
                more,
                advertised,
                load());
        if (peer(frr, node).received() < advertised + more) {
            row("speaker (BGP)", what, "not reached: " + peer(frr, node));
            return;
        }
        String after = sandbox.metrics(node).orElse("");
        double reconciles = queueCount(after) - queueCount(before);
        double plans = counter(after, "lbk8s_speaker_plans_total") - counter(before, "lbk8s_speaker_plans_total");
        row(
                "speaker (BGP)",
                what,
                String.format(
                        Locale.ROOT,
                        "%.1f s, %.0f Services/s (the writes alone: %.1f s); %.0f reconciles%s",
                        seconds,
                        more / seconds,
                        written,
                        reconciles,
                        counter(after, "lbk8s_speaker_plans_total") < 0
                                ? ""
                                : String.format(Locale.ROOT, ", %.0f plans", plans)));
    }

    private static double queueCount(String metrics) {
        Matcher m = Pattern.compile(
                        "(?m)^lbk8s_workqueue_work_duration_seconds_count\\{[^}]*name=\"speaker\"[^}]*\\} (\\S+)")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Services {@code prefix}0.. of the bulk pool from its {@code first} address on, by 8 threads, as the controller. */
    private void writeAssigned(String prefix, int first, int count) throws InterruptedException {
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int offset = t;
            writers.add(Thread.ofVirtual().start(() -> {
                for (int i = offset; i < count; i += 8) {
                    createAssigned(prefix + i, bulkAddress(first + i));
                }
            }));
        }
        for (Thread writer : writers) {
            writer.join();
        }
    }

    /** A Service of the bulk pool with the status the controller would write: {@code ip} in its ingress. */
    private void createAssigned(String name, String ip) {
        Service service = sandbox.client
                .services()
                .resource(new ServiceBuilder(ControllerBenchmark.service(name))
                        .editMetadata()
                        .withAnnotations(Map.of("metallb.io/address-pool", "bulk"))
                        .endMetadata()
                        .editSpec()
                        .withSelector(Map.of("app", "bulk"))
                        .endSpec()
                        .build())
                .create();
        service.setStatus(new ServiceStatusBuilder()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .withIpMode("VIP")
                .endIngress()
                .endLoadBalancer()
                .build());
        sandbox.client.services().resource(service).updateStatus();
    }

    /** What FRR says of its session with a node: Established or not, and the prefixes it has received. */
    private record Peer(boolean established, long received) {}

    private static Peer peer(FrrRouter frr, TestNode node) {
        try {
            JsonNode peer = JSON.readTree(frr.vtysh("show bgp ipv4 unicast summary json"))
                    .path("peers")
                    .path(text(node.ipv4()));
            return new Peer(
                    "Established".equals(peer.path("state").asString("")),
                    peer.path("pfxRcd").asLong(0));
        } catch (JacksonException e) {
            return new Peer(false, 0); // bgpd not answering yet
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The {@code index}-th address of the latency pool, from its second on. */
    private static String latencyAddress(int index) {
        return poolAddress(LATENCY_POOL, index);
    }

    private static String bulkAddress(int index) {
        return poolAddress(BULK_POOL, index);
    }

    private static String poolAddress(String cidr, int index) {
        String base = cidr.substring(0, cidr.indexOf('/'));
        return IpAddress.parse(base).orElseThrow().plus(index + 1).orElseThrow().toString();
    }

    private static String load() throws java.io.IOException {
        String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return fields[0] + " / " + fields[1] + " / " + fields[2];
    }

    /** The sandbox starts a speaker through a shell that stops it when stdin closes: the JVM is its child. */
    private static long javaIn(Process process) {
        return process.toHandle()
                .descendants()
                .filter(p -> p.info().command().orElse("").endsWith("java"))
                .findFirst()
                .orElse(process.toHandle())
                .pid();
    }

    /** A LoadBalancer Service from {@code pool}, asking for {@code ip} (null: any), with a selector (so endpoints). */
    private void createService(String name, String ip, String pool) {
        Map<String, String> annotations = ip == null
                ? Map.of("metallb.io/address-pool", pool)
                : Map.of("metallb.io/address-pool", pool, "metallb.io/loadBalancerIPs", ip);
        createService(name, "LoadBalancer", annotations, pool);
    }

    /** A Service of {@code type} (null: the API server's default) with one HTTP port, selecting app={@code app}. */
    private void createService(String name, String type, Map<String, String> annotations, String app) {
        sandbox.client
                .services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withAnnotations(annotations)
                        .endMetadata()
                        .withNewSpec()
                        .withType(type)
                        .withSelector(Map.of("app", app))
                        .addNewPort()
                        .withName("http")
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
    }

    /**
     * Waits for the router's FIB to satisfy {@code condition}, looking with {@code ip route} (a process, a few ms of
     * CPU) each time {@code ip monitor} reports a change of {@code prefix}, and every 200 ms in any case: polling
     * without a pause would take one of the 2 vCPUs from the speakers and FRR being measured.
     */
    private void awaitFib(BgpPhases phases, String prefix, Predicate<List<FibRoute>> condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long changes = -1;
        long lookedAt = 0;
        while (System.nanoTime() < deadline) {
            long now = phases.changesOf(prefix);
            if (now != changes || System.nanoTime() - lookedAt > 200_000_000L) {
                changes = now;
                lookedAt = System.nanoTime();
                if (condition.test(router.fib(prefix))) {
                    return;
                }
            }
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
        }
        throw new IllegalStateException(
                "router's FIB for " + prefix + " not as wanted after " + timeout + ": " + router.fib(prefix));
    }

    /** Polls the FIB without a pause: each look is one {@code ip route} process, a few milliseconds. */
    private void awaitFib(String prefix, Predicate<List<FibRoute>> condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.test(router.fib(prefix))) {
                return;
            }
        }
        throw new IllegalStateException(
                "router's FIB for " + prefix + " not as wanted after " + timeout + ": " + router.fib(prefix));
    }

    private static void row(String component, String figure, String value) {
        System.out.println("| " + component + " | " + figure + " | " + value + " |");
    }

    private static String text(InetAddress ip) {
        return ip.getHostAddress();
    }
}

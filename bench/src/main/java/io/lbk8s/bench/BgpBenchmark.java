package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.net.ChildJvm;
import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BgpRouter;
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

/**
 * BGP mode's figures on the namespace network with FRR 8.4 as the upstream router (not a test): Service created ->
 * its route in the router's kernel routing table (FIB), a frozen node's next hop gone from it with BFD at 300 ms x 3,
 * and a full table of 10,000 routes sent by our session code to a new FRR peer, with that JVM's RSS. Prints markdown
 * table rows. Usage: {@code BgpBenchmark [--quick]} (--quick: 10 Services, 2 freezes, 1,000 routes).
 */
public final class BgpBenchmark {
    private static final long ROUTER_AS = 64500;
    private static final long NODE_AS = 64512;
    private static final Duration SOON = Duration.ofSeconds(30);
    private static final int WARMUP = 3;
    private static final Pattern PFX_RCD = Pattern.compile("\"pfxRcd\"\\s*:\\s*(\\d+)");

    private final Sandbox sandbox;
    private final TestNetwork network;
    private final UpstreamRouter router;

    private BgpBenchmark(Sandbox sandbox) throws java.io.IOException {
        this.sandbox = sandbox;
        this.network = sandbox.network;
        this.router = network.router();
    }

    public static void main(String[] args) throws Exception {
        boolean quick = args.length > 0 && args[0].equals("--quick");
        var missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            System.out.println("| speaker (BGP) | BGP figures | not measured: " + missing.get() + " |");
            return;
        }
        Path logs = Files.createTempDirectory("lbk8s-bgp-bench");
        boolean measured = false;
        try (Sandbox sandbox =
                Sandbox.start(logs, TestNetwork.DEFAULT_NODE_COUNT, BgpPhases.debugLauncher(logs), List.of())) {
            BgpBenchmark bench = new BgpBenchmark(sandbox);
            bench.configure();
            bench.serviceToRoute(quick ? 10 : 40);
            bench.frozenNode(quick ? 2 : 5);
            bench.fullTable(quick ? 1_000 : 10_000);
            measured = true;
        } finally {
            if (measured && !Boolean.getBoolean("bench.keepLogs")) {
                L2Benchmark.deleteTree(logs);
            } else {
                System.err.println("the sandbox's logs are in " + logs + (measured ? "" : " (BgpBenchmark failed)"));
            }
        }
    }

    /** BgpIT's setup: MetalLB's objects for one FRR peer with BFD at 300 ms x 3, a pool of the network's 51 addresses. */
    private void configure() {
        sandbox.createMetallb(
                "BFDProfile", "fast", "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        sandbox.createMetallb(
                "BGPPeer",
                "router",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '" + text(router.ipv4())
                        + "', bfdProfile: fast, holdTime: 90s}");
        sandbox.createMetallb("IPAddressPool", "bgp", "{addresses: ['" + network.ipv4Pool() + "']}");
        sandbox.createMetallb("BGPAdvertisement", "bgp", "{ipAddressPools: [bgp]}");
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT))
                .toList();
        BgpRouter frr = router.start(RouterKind.FRR, RouterConfig.of(ROUTER_AS, router.ipv4(), peers));
        for (TestNode node : network.nodes()) {
            frr.awaitEstablished(node.ipv4(), SOON);
        }
    }

    /**
     * Each Service asks for its address (metallb.io/loadBalancerIPs) so that the router's FIB can be watched for it
     * from the moment of the create call; the clock stops when the kernel's routing table in the router's namespace
     * first has a route for it, whichever node's it is, as {@code ip -ts monitor route} stamps the kernel's
     * notification. The benchmark confirms each with {@code ip route} and waits for all 3 next hops before the next
     * Service, so that one Service's work does not overlap the next one's. {@link BgpPhases} says where the time went.
     */
    private void serviceToRoute(int count) throws java.io.IOException {
        List<Long> micros = new ArrayList<>();
        List<Long> allNodes = new ArrayList<>();
        FrrRouter frr = (FrrRouter) router.running().orElseThrow();
        try (BgpPhases phases = BgpPhases.start(sandbox, frr)) {
            double[] queuesBefore = phases.speakerQueues();
            double[] controllerBefore = phases.controllerQueue();
            for (int i = 0; i < count; i++) {
                String name = "bgp-" + i;
                String ip = text(network.ipv4PoolAddress(i));
                String prefix = ip + "/32";
                long start = Sandbox.nowMicros();
                phases.created(name, prefix, start);
                createService(name, ip);
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
                    "Service created -> route in FRR's FIB p50 / p99 / max (" + count + " Services)",
                    ConflictBenchmark.percentiles(micros));
            // the first Services after start run the controller's and speakers' code cold (bin/lbk8s has no AOT cache)
            int warmup = Math.min(WARMUP, count - 1);
            row(
                    "speaker (BGP)",
                    String.format(
                            Locale.ROOT,
                            "same, Services %d to %d (the first %d, while the JVMs warm up: %s)",
                            warmup + 1,
                            count,
                            warmup,
                            micros.subList(0, warmup).stream()
                                    .map(m -> m / 1000 + " ms")
                                    .toList()),
                    ConflictBenchmark.percentiles(micros.subList(warmup, count)));
            row(
                    "speaker (BGP)",
                    "Service created -> FIB route over all 3 nodes (ECMP) p50 / p99 / max",
                    ConflictBenchmark.percentiles(allNodes));
            for (String[] phase : phases.rows()) {
                row("speaker (BGP)", phase[0], phase[1]);
            }
            queueRow("speakers' (3 nodes)", queuesBefore, phases.speakerQueues(), count);
            queueRow("the controller's", controllerBefore, phases.controllerQueue(), count);
        }
        TestNode first = network.nodes().getFirst();
        try {
            row(
                    "speaker (BGP)",
                    "speaker RSS with " + count + " BGP Services, one peer with BFD (" + first.name() + ")",
                    ProcessMemory.of(javaIn(sandbox.speaker(first).process())).describe());
        } catch (java.io.IOException | IllegalStateException e) {
            row("speaker (BGP)", "speaker RSS", "not measured: " + e.getMessage());
        }
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
        String prefix = text(network.ipv4PoolAddress(0)) + "/32";
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
     * The session code alone in a JVM of its own in the third node's namespace (that node's speaker stopped so the
     * address is free), FRR restarted with it as its only peer: Established -> FRR counts every route (pfxRcd).
     */
    private void fullTable(int count) throws Exception {
        TestNode node = network.nodes().getLast();
        sandbox.speaker(node).stop(Duration.ofSeconds(10));
        router.running().ifPresent(BgpRouter::close);
        FrrRouter frr = router.startFrr(
                RouterConfig.of(ROUTER_AS, router.ipv4(), List.of(RouterPeer.at(node.ipv4(), NODE_AS))));
        try (ChildJvm child = ChildJvm.start(
                node.namespace(),
                BgpTableChild.class,
                text(router.ipv4()),
                String.valueOf(NODE_AS),
                String.valueOf(ROUTER_AS),
                text(node.ipv4()),
                String.valueOf(count))) {
            expect(child.nextLine(30), "ready");
            String[] established = expect(child.nextLine(60), "ok established").split(" ");
            long start = Long.parseLong(established[2]);
            long pid = Long.parseLong(established[3]);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long received = 0;
            while (received < count && System.nanoTime() < deadline) {
                received = received(frr);
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (received < count) {
                throw new IllegalStateException("FRR holds " + received + " of " + count + " routes after 60 s");
            }
            row(
                    "speaker (BGP)",
                    String.format(
                            Locale.ROOT, "full table of %,d routes to a new FRR peer (Established -> pfxRcd)", count),
                    millis + " ms");
            row(
                    "speaker (BGP)",
                    String.format(Locale.ROOT, "RSS of a JVM running the BGP session with %,d routes", count),
                    ProcessMemory.of(pid).describe());
        }
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

    private static long received(FrrRouter frr) {
        Matcher m = PFX_RCD.matcher(frr.vtysh("show bgp ipv4 unicast summary json"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static String expect(String line, String start) {
        if (!line.startsWith(start)) {
            throw new IllegalStateException("the session JVM said '" + line + "', not '" + start + "'");
        }
        return line;
    }

    private void createService(String name, String ip) {
        sandbox.client
                .services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withAnnotations(Map.of("metallb.io/address-pool", "bgp", "metallb.io/loadBalancerIPs", ip))
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(Map.of("app", name))
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

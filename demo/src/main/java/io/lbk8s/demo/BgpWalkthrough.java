package io.lbk8s.demo;

import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.FibRoute;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.RouterSession;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * {@code demo/run --bgp}: BGP mode on the demo's sandbox, as a user with a router sees it. FRR is the upstream router,
 * the remote client behind it reaches the Service only through it; every piece of evidence is read from the router
 * (its BGP table with vtysh, its kernel's routes with ip) or from the remote client's curl, as lbk8s's BgpIT does.
 */
final class BgpWalkthrough {
    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    /** The remote client's calls: enough for every next hop to show up, as each is a new connection. */
    static final int CALLS = 20;

    private static final Duration SOON = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(20);
    private static final Duration CURL = Duration.ofSeconds(2);
    /** BFD at 300 ms × 3 should take a dead node's route away in about a second; 5 s means it did not work. */
    private static final Duration BFD_BOUND = Duration.ofSeconds(5);
    /** The BGPPeer's hold time: without BFD or a goodbye, the router would wait this long. */
    private static final String HOLD_TIME = "90s";

    private static final String HOLD_TIME_TEXT = "90 s";

    /** Demo's own step 1, which prints the Service as kubectl get svc -w would. */
    @FunctionalInterface
    interface ServiceCreator {
        Demo.Created create(String name, boolean ipv6) throws InterruptedException;
    }

    /** What the walk-through measured, for its summary. */
    record Result(
            String service,
            String address,
            Duration routed,
            Map<String, Integer> answers,
            int failedCalls,
            String frozen,
            Duration frozenGone,
            Duration thawedBack,
            String stopped,
            Duration stoppedGone) {}

    private final Console console;
    private final Sandbox sandbox;
    private final TestNetwork network;
    private final Path logs;
    private final ServiceCreator services;
    private UpstreamRouter router;
    private BgpRouter frr;
    private InetAddress ip;

    BgpWalkthrough(Console console, Sandbox sandbox, Path logs, ServiceCreator services) {
        this.console = console;
        this.sandbox = sandbox;
        this.network = sandbox.network;
        this.logs = logs;
        this.services = services;
    }

    Result run() throws Exception {
        router = network.router();
        applyConfig();
        peer();

        console.heading("2. The Service gets an address");
        long created = System.nanoTime();
        Demo.Created service = services.create("whoami", false);
        ip = service.ip();

        console.heading("3. The router learns the address from all three nodes and spreads the traffic (ECMP)");
        Duration routed = awaitRoute(created);
        Map<String, Integer> answers = callFromRemote(CALLS);
        int failed =
                CALLS - answers.values().stream().mapToInt(Integer::intValue).sum();

        TestNode frozen = network.nodes().getFirst();
        console.heading("4. " + frozen.name() + " hangs (SIGSTOP to all its processes): BFD tells the router");
        Duration gone = freeze(frozen);
        Duration back = thaw(frozen);

        TestNode stopped = network.nodes().get(1);
        console.heading("5. The speaker on " + stopped.name() + " stops (SIGTERM): it withdraws before it goes");
        Duration withdrawn = stopSpeaker(stopped);

        Result result = new Result(
                service.name(),
                Format.address(ip),
                routed,
                answers,
                failed,
                frozen.name(),
                gone,
                back,
                stopped.name(),
                withdrawn);
        console.heading("Summary");
        console.lines(table(result).lines(""));
        console.line("");
        console.lines(legend());
        return result;
    }

    // ---- the configuration and the router ----

    private void applyConfig() {
        String pool = Format.address(network.ipv4PoolAddress(0)) + "-" + Format.address(network.ipv4PoolAddress(20));
        console.heading("kubectl apply: MetalLB's BGP objects (a BFDProfile, a BGPPeer, a pool, a BGPAdvertisement)");
        apply("BFDProfile", "fast", "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        apply(
                "BGPPeer",
                "router",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: " + Format.address(router.ipv4())
                        + ", bfdProfile: fast, holdTime: " + HOLD_TIME + "}");
        apply("IPAddressPool", "bgp", "{addresses: ['" + pool + "']}");
        apply("BGPAdvertisement", "bgp", "{ipAddressPools: [bgp]}");
    }

    private void apply(String kind, String name, String spec) {
        sandbox.createMetallb(kind, name, spec);
        console.line(String.format(
                "%-18s %-22s %s",
                kind + (kind.equals("BGPPeer") ? " (v1beta2)" : ""), Sandbox.NAMESPACE + "/" + name, spec));
    }

    private void peer() throws InterruptedException {
        console.heading("1. The upstream router: FRR in namespace " + router.namespace() + ", AS " + ROUTER_AS
                + ", a neighbor per node with BFD 300 ms x 3");
        console.line("remote client " + Format.address(router.remoteClient().ipv4()) + " in "
                + router.remoteClient().namespace() + ", on subnet " + router.remoteIpv4Subnet()
                + ": it reaches the nodes only through the router");
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT))
                .toList();
        try (var progress = console.progress("starting FRR (zebra, bgpd, bfdd) and waiting for its sessions")) {
            frr = router.start(RouterKind.FRR, RouterConfig.of(ROUTER_AS, router.ipv4(), peers));
            Wait.until(
                    "FRR's BGP sessions with the three nodes Established and their BFD sessions Up",
                    SOON,
                    POLL,
                    () -> Optional.of(true).filter(t -> allUp()));
            progress.done("3 sessions Established, 3 BFD sessions Up");
        }
        var table = TextTable.of("NEIGHBOR", "NODE", "AS", "BGP", "BFD");
        List<RouterBfdPeer> bfd = frr.bfdPeers();
        for (TestNode node : network.nodes()) {
            table = table.row(
                    Format.address(node.ipv4()),
                    node.name(),
                    Long.toString(NODE_AS),
                    frr.session(node.ipv4()).map(RouterSession::state).orElse("-"),
                    bfdState(bfd, node));
        }
        console.line("router$ vtysh -c 'show bgp summary' -c 'show bfd peers'");
        console.lines(table.lines("  "));
    }

    private boolean allUp() {
        List<RouterBfdPeer> bfd = frr.bfdPeers();
        return network.nodes().stream()
                .allMatch(n ->
                        frr.session(n.ipv4()).map(RouterSession::established).orElse(false)
                                && bfd.stream().anyMatch(p -> p.peer().equals(n.ipv4()) && p.up()));
    }

    private static String bfdState(List<RouterBfdPeer> bfd, TestNode node) {
        return bfd.stream()
                .filter(p -> p.peer().equals(node.ipv4()))
                .map(RouterBfdPeer::state)
                .findFirst()
                .orElse("-");
    }

    // ---- the route and the traffic ----

    private String prefix() {
        return Format.address(ip) + "/32";
    }

    private Duration awaitRoute(long created) throws InterruptedException {
        List<RibPath> paths = Wait.until(
                "FRR's BGP table to have " + prefix() + " from the three nodes",
                SOON,
                POLL,
                () -> Optional.of(frr.routes(prefix()))
                        .filter(p -> p.size() == network.nodes().size()));
        console.line("router$ vtysh -c 'show bgp ipv4 unicast " + prefix() + "': " + paths.size() + " paths");
        for (RibPath path : paths) {
            console.line("  via " + Format.address(path.nextHop()) + " (" + nodeName(path.nextHop()) + ")"
                    + (path.best() ? ", best" : ", multipath"));
        }
        List<InetAddress> hops = awaitFib(r -> r.size() == network.nodes().size(), "over the three nodes", SOON);
        Duration took = Duration.ofNanos(System.nanoTime() - created);
        console.line("router$ ip route show " + Format.address(ip) + ": " + describe(hops) + " ("
                + Format.duration(took) + " after the Service was created)");
        return took;
    }

    private List<InetAddress> awaitFib(Predicate<List<InetAddress>> condition, String what, Duration timeout)
            throws InterruptedException {
        return Wait.until("the router's FIB to route " + prefix() + " " + what, timeout, POLL, () -> {
            List<FibRoute> routes = router.fib(prefix());
            List<InetAddress> hops = routes.size() == 1 ? routes.getFirst().nextHops() : List.of();
            return Optional.of(hops).filter(h -> !h.isEmpty() && condition.test(h));
        });
    }

    /**
     * The next hops in node order: the kernel lists them in the order of the router's path choice (its best path
     * first, which for eBGP is the oldest), so the same route would read differently from run to run.
     */
    private String describe(List<InetAddress> hops) {
        return "nexthop via "
                + hops.stream()
                        .sorted(Comparator.comparing(this::nodeName))
                        .map(h -> Format.address(h) + " (" + nodeName(h) + ")")
                        .collect(Collectors.joining(", "))
                + " proto bgp";
    }

    private String nodeName(InetAddress address) {
        return network.nodes().stream()
                .filter(n -> n.ipv4().equals(address))
                .map(TestNode::name)
                .findFirst()
                .orElse("?");
    }

    /** {@code calls} curls from the remote client, each a new connection: how many each node answered. */
    private Map<String, Integer> callFromRemote(int calls) {
        Map<String, Integer> answers = new TreeMap<>();
        int failed = 0;
        for (int i = 0; i < calls; i++) {
            Optional<String> body = router.remoteClient().curl(ip, CURL).map(String::strip);
            if (body.isPresent()) {
                answers.merge(body.get(), 1, Integer::sum);
            } else {
                failed++;
            }
        }
        console.line("remote$ curl " + Demo.url(ip) + " (" + calls + " times, each a new connection): answered by "
                + answersText(answers) + (failed == 0 ? "" : console.bad(", " + failed + " failed")));
        return answers;
    }

    static String answersText(Map<String, Integer> answers) {
        return answers.isEmpty()
                ? "nobody"
                : answers.entrySet().stream()
                        .map(e -> e.getKey() + " x" + e.getValue())
                        .collect(Collectors.joining(", "));
    }

    // ---- failures ----

    private Duration freeze(TestNode node) throws InterruptedException {
        long frozenAt = System.nanoTime();
        network.freeze(node);
        console.line("kill -STOP $(ip netns pids " + node.namespace() + "): " + node.name()
                + "'s speaker and backend hang; its kernel still answers, its BGP session has 90 s of hold time left");
        List<InetAddress> hops;
        try (var progress = console.progress("waiting for the router to stop sending traffic to " + node.name())) {
            hops = awaitFib(h -> !h.contains(node.ipv4()), "without " + node.name(), BFD_BOUND);
            progress.done(node.name() + "'s next hop left the FIB");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - frozenAt);
        console.line("router$ ip route show " + Format.address(ip) + ": " + describe(hops) + " ("
                + Format.duration(took) + " after the freeze)");
        console.line("router$ vtysh -c 'show bfd peers': " + node.name() + " " + bfdState(frr.bfdPeers(), node)
                + " (BFD missed 3 packets 300 ms apart and told bgpd)");
        callFromRemote(CALLS / 2);
        return took;
    }

    private Duration thaw(TestNode node) throws InterruptedException {
        long thawedAt = System.nanoTime();
        network.thaw(node);
        console.line("kill -CONT $(ip netns pids " + node.namespace() + "): " + node.name() + " runs again");
        List<InetAddress> hops;
        try (var progress = console.progress("waiting for " + node.name() + " to be back in the router's FIB")) {
            hops = awaitFib(h -> h.size() == network.nodes().size(), "over the three nodes again", SOON);
            progress.done("BFD Up, the BGP session Established again, the route re-advertised");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - thawedAt);
        console.line("router$ ip route show " + Format.address(ip) + ": " + describe(hops) + " ("
                + Format.duration(took) + " after the thaw)");
        return took;
    }

    private Duration stopSpeaker(TestNode node) throws InterruptedException {
        long pid = sandbox.speaker(node).pid();
        long stoppedAt = System.nanoTime();
        sandbox.speaker(node).terminate();
        console.line("kill -TERM " + pid + ": the speaker on " + node.name()
                + " says goodbye to the router before it exits, instead of leaving it to wait out the hold time");
        List<InetAddress> hops;
        try (var progress = console.progress("waiting for the router to drop " + node.name() + "'s route")) {
            hops = awaitFib(h -> !h.contains(node.ipv4()), "without " + node.name(), BFD_BOUND);
            progress.done("gone, long before the hold time (" + HOLD_TIME_TEXT + ")");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - stoppedAt);
        console.line("router$ ip route show " + Format.address(ip) + ": " + describe(hops) + " ("
                + Format.duration(took) + " after SIGTERM)");
        console.line("router$ vtysh -c 'show bgp summary': " + node.name() + " "
                + frr.session(node.ipv4()).map(RouterSession::toString).orElse("-"));
        var exit = sandbox.speaker(node).waitFor(Duration.ofSeconds(10));
        console.line("the stopped speaker "
                + (exit.isPresent() ? "exited with code " + exit.getAsInt() : "is still running after 10 s"));
        try (var progress = console.progress("restarting the speaker on " + node.name() + ", as its DaemonSet would")) {
            sandbox.restartSpeaker(node);
            awaitFib(h -> h.size() == network.nodes().size(), "over the three nodes again", SOON);
            progress.done("ready, and back in the router's FIB");
        }
        return took;
    }

    // ---- the summary ----

    static TextTable table(Result r) {
        return TextTable.of("WHAT HAPPENED", "WHAT THE ROUTER DID", "TIME")
                .row(
                        "Service " + r.service() + " created",
                        "routes " + r.address() + " over the 3 nodes (ECMP)",
                        Format.duration(r.routed()))
                .row(
                        CALLS + " calls from the remote client",
                        "answered by " + answersText(r.answers()) + "; " + r.failedCalls() + " failed",
                        "-")
                .row(r.frozen() + " frozen (SIGSTOP)", "dropped its next hop (BFD)", Format.duration(r.frozenGone()))
                .row(r.frozen() + " thawed (SIGCONT)", "took it back", Format.duration(r.thawedBack()))
                .row(
                        "speaker on " + r.stopped() + " stopped (SIGTERM)",
                        "dropped its next hop (withdrawn)",
                        Format.duration(r.stoppedGone()));
    }

    static List<String> legend() {
        return List.of(
                "TIME  measured here, polling the router's kernel routes (ip route) every 20 ms: from creating the",
                "      Service, from the SIGSTOP, the SIGCONT and the SIGTERM; without BFD or a goodbye the router",
                "      would keep a dead node's route for the hold time (" + HOLD_TIME_TEXT + ")");
    }

    /** With --keep: how to look around. */
    List<String> exploreHints() {
        String remote = router.remoteClient().namespace();
        return List.of(
                "The sandbox keeps running. In another shell, as root:",
                "",
                "  export KUBECONFIG=" + sandbox.kubeconfig,
                "  kubectl get svc -A",
                "  kubectl get bgppeers,bgpadvertisements,bfdprofiles,ipaddresspools -n lbk8s-system",
                "  ip netns exec " + router.namespace() + " ip route show " + Format.address(ip),
                "  ip netns exec " + remote + " curl " + Demo.url(ip),
                "",
                "Logs: " + logs + "/*.log",
                "Press Ctrl-C here (or kill -TERM " + ProcessHandle.current().pid() + ") to remove it all.");
    }
}

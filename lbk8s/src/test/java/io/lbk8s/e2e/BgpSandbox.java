package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.BirdRouter;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.GobgpRouter;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The cluster the BGP end-to-end tests (BgpIT with FRR, BgpBirdIT with BIRD, BgpGobgpIT with GoBGP) share, and what
 * they do to it as a user would: a Sandbox of three nodes started once for a test class with the BGPPeer {@value PEER}
 * (the router's IPv4 address, AS {@value NODE_AS} to AS {@value ROUTER_AS}, hold time 90 s, BFDProfile
 * {@value BFD_PROFILE} if asked), the IPAddressPool {@value POOL} of 20 addresses and a BGPAdvertisement of it.
 * Every test starts with that BGPPeer, no router running, every node thawed and every speaker running:
 * {@code @RegisterExtension static final BgpSandbox bgp = BgpSandbox.withBfd("bgp");}.
 */
final class BgpSandbox implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    static final Duration SOON = Duration.ofSeconds(30);
    static final Duration CURL = Duration.ofSeconds(2);
    /** How long a failed node's path may take to leave (or turn stale on) the router before a wait gives up. */
    static final Duration FAILOVER = Duration.ofSeconds(5);

    static final String PEER = "router";
    static final String BFD_PROFILE = "fast";
    static final String POOL = "bgp";
    private static final Pattern TRANSITIONS =
            Pattern.compile("lbk8s_bgp_session_transitions_total\\{peer=\"" + PEER + "\"\\} ([0-9.E]+)");

    /** The pool {@code lbk8s install} creates, which {@link #configuredByInstall} uses instead of {@value POOL}. */
    static final String INSTALLED_POOL = "default";

    private final String logName;
    private final boolean bfd;
    private final Optional<String> community;
    private final boolean byInstall;
    private final List<String> speakerArgs;
    private Sandbox cluster;
    private UpstreamRouter router;
    /** The BGPPeer's spec before a test edited it, to put back after the test; null while unedited. */
    private Map<String, Object> peerBeforeTest;

    private BgpSandbox(
            String logName, boolean bfd, Optional<String> community, boolean byInstall, List<String> speakerArgs) {
        this.logName = logName;
        this.bfd = bfd;
        this.community = community;
        this.byInstall = byInstall;
        this.speakerArgs = List.copyOf(speakerArgs);
    }

    /** The BGPPeer references the BFDProfile {@value BFD_PROFILE} (300 ms × 3). */
    static BgpSandbox withBfd(String logName) {
        return new BgpSandbox(logName, true, Optional.empty(), false, List.of());
    }

    /** The BGPPeer has no BFDProfile (GoBGP has no BFD). */
    static BgpSandbox withoutBfd(String logName) {
        return new BgpSandbox(logName, false, Optional.empty(), false, List.of());
    }

    /**
     * The pool {@value INSTALLED_POOL}, the BGPPeer {@value PEER} (no BFD) and the BGPAdvertisement come from what a
     * user types: {@code lbk8s install --addresses RANGE --bgp-peer ROUTER,asn=...,my-asn=...,name=router}.
     */
    static BgpSandbox configuredByInstall(String logName) {
        return new BgpSandbox(logName, false, Optional.empty(), true, List.of());
    }

    /** The BGPAdvertisement also attaches the BGP community {@code value} (e.g. {@code 65000:7}). */
    BgpSandbox advertisingCommunity(String value) {
        return new BgpSandbox(logName, bfd, Optional.of(value), byInstall, speakerArgs);
    }

    /** Every speaker started with {@code args} added to its command line. */
    BgpSandbox withSpeakerArgs(String... args) {
        return new BgpSandbox(logName, bfd, community, byInstall, List.of(args));
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(
                Sandbox.REPO.resolve("lbk8s/target/e2e-logs/" + logName + "-" + System.currentTimeMillis()),
                TestNetwork.DEFAULT_NODE_COUNT,
                speakerArgs);
        router = cluster.network.router();
        if (byInstall) {
            install();
            return;
        }
        if (bfd) {
            cluster.createMetallb(
                    "BFDProfile", BFD_PROFILE, "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        }
        cluster.createMetallb(
                "BGPPeer",
                PEER,
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '" + text(router().ipv4()) + "'"
                        + (bfd ? ", bfdProfile: " + BFD_PROFILE : "") + ", holdTime: 90s}");
        // 20 addresses: every test's Services stay until the class ends
        cluster.createMetallb(
                "IPAddressPool",
                POOL,
                "{addresses: ['" + text(network().ipv4PoolAddress(30)) + "-"
                        + text(network().ipv4PoolAddress(49)) + "']}");
        cluster.createMetallb(
                "BGPAdvertisement",
                POOL,
                "{ipAddressPools: [" + POOL + "]"
                        + community.map(c -> ", communities: ['" + c + "']").orElse("") + "}");
    }

    private void install() {
        CliRun run = CliRun.of(
                cluster.kubeconfig,
                "install",
                "--wait=false",
                "--addresses",
                text(network().ipv4PoolAddress(30)) + "-" + text(network().ipv4PoolAddress(49)),
                "--bgp-peer",
                text(router().ipv4()) + ",asn=" + ROUTER_AS + ",my-asn=" + NODE_AS + ",name=" + PEER);
        assertThat(run.code()).as("lbk8s install: %s%s", run.out(), run.err()).isZero();
    }

    /** The BGPPeer as the class set it, the router stopped, every node thawed, every killed speaker running and Ready. */
    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (peerBeforeTest != null) {
                Map<String, Object> before = peerBeforeTest;
                editPeer(spec -> {
                    spec.clear();
                    spec.putAll(before);
                });
                peerBeforeTest = null;
            }
        } finally {
            router().thaw();
            router().linkUp();
            router().running().ifPresent(BgpRouter::close);
            for (TestNode node : network().nodes()) {
                network().thaw(node);
                if (!cluster.speaker(node).isAlive()) {
                    cluster.startSpeaker(node);
                    cluster.awaitSpeakerReadyAndMarkPod(node);
                }
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }

    Sandbox cluster() {
        return cluster;
    }

    TestNetwork network() {
        return cluster.network;
    }

    UpstreamRouter router() {
        return router;
    }

    /** The {@code index}-th node (0: node-1). */
    TestNode node(int index) {
        return network().nodes().get(index);
    }

    /** The nodes' IPv4 addresses: the next hops of a route they all advertise. */
    List<InetAddress> nodeAddresses() {
        return network().nodes().stream().map(TestNode::ipv4).toList();
    }

    /** Each node as one of the router's IPv4 peers, with BFD at 300 ms × 3 when {@code withBfd}. */
    List<RouterPeer> ipv4Peers(boolean withBfd) {
        return network().nodes().stream()
                .map(n -> withBfd
                        ? RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT)
                        : RouterPeer.at(n.ipv4(), NODE_AS))
                .toList();
    }

    /** The router in AS {@value ROUTER_AS} at its IPv4 address, peering with {@code peers}, multipath on. */
    RouterConfig routerConfig(List<RouterPeer> peers, boolean gracefulRestart) {
        return RouterConfig.of(ROUTER_AS, router().ipv4(), peers).withGracefulRestart(gracefulRestart);
    }

    /**
     * Starts {@code kind} as the router with {@code peers} and graceful restart as asked, and returns once every
     * node's IPv4 session is Established.
     */
    BgpRouter startRouter(RouterKind kind, List<RouterPeer> peers, boolean gracefulRestart) {
        BgpRouter upstream = router().start(kind, routerConfig(peers, gracefulRestart));
        awaitEstablishedWithEveryNode(upstream);
        return upstream;
    }

    /** Waits until {@code upstream}'s IPv4 session with every node is Established. */
    void awaitEstablishedWithEveryNode(BgpRouter upstream) {
        for (TestNode node : network().nodes()) {
            upstream.awaitEstablished(node.ipv4(), SOON);
        }
    }

    /**
     * {@code upstream} has a path to {@code ip} from every node and its FIB routes it over all three, and 5 of 5 curls
     * from the remote client through it are answered.
     */
    void assertRoutedOverEveryNodeAndAnswered(BgpRouter upstream, InetAddress ip) {
        assertThat(upstream.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(nodeAddresses());
        awaitFibOverEveryNode(ip, "over 3");
        assertThat(curlsAnswered(ip, 5))
                .as("curls answered through " + upstream.kind())
                .isEqualTo(5);
    }

    /** FRR peering with the nodes over IPv4 (BFD and graceful restart as asked), every session Established. */
    FrrRouter startFrr(boolean withBfd, boolean gracefulRestart) {
        return (FrrRouter) startRouter(RouterKind.FRR, ipv4Peers(withBfd), gracefulRestart);
    }

    /** BIRD peering with the nodes over IPv4 (BFD and graceful restart as asked), every session Established. */
    BirdRouter startBird(boolean withBfd, boolean gracefulRestart) {
        return (BirdRouter) startRouter(RouterKind.BIRD, ipv4Peers(withBfd), gracefulRestart);
    }

    /** GoBGP peering with the nodes over IPv4 (graceful restart as asked; it has no BFD), every session Established. */
    GobgpRouter startGobgp(boolean gracefulRestart) {
        return (GobgpRouter) startRouter(RouterKind.GOBGP, ipv4Peers(false), gracefulRestart);
    }

    /** Waits until the router's BFD sessions with the three nodes are Up. */
    static void awaitBfdUp(BgpRouter upstream) {
        Sandbox.poll(
                upstream.kind() + "'s BFD sessions with the three nodes Up",
                SOON,
                () -> upstream.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);
    }

    /** The router has a BFD session with {@code node} and it is not Up. */
    static boolean bfdDown(BgpRouter upstream, TestNode node) {
        return upstream.bfdPeers().stream().anyMatch(b -> b.peer().equals(node.ipv4()) && !b.up());
    }

    /** Next hops of the paths to {@code prefix} the router keeps as stale for a peer's graceful restart. */
    static List<InetAddress> staleNextHops(BgpRouter upstream, String prefix) {
        return switch (upstream) {
            case FrrRouter frr -> frr.staleNextHops(prefix);
            case BirdRouter bird -> bird.staleNextHops(prefix);
            case GobgpRouter gobgp -> gobgp.staleNextHops(prefix);
        };
    }

    /**
     * What {@code kubectl get bgpsessionstates} says of {@code node}'s session with BGPPeer {@value PEER}: its
     * {@code bgpStatus} (e.g. {@code Established}, {@code Active}); empty while the node has no such object.
     */
    Optional<String> sessionState(TestNode node) {
        return cluster
                .client
                .genericKubernetesResources(BgpSessionStates.CONTEXT)
                .inNamespace(Sandbox.NAMESPACE)
                .withLabel(BgpSessionStates.NODE_LABEL, node.name())
                .withLabel(BgpSessionStates.PEER_LABEL, PEER)
                .list()
                .getItems()
                .stream()
                .map(r -> r.getAdditionalProperties().get("status"))
                .filter(Map.class::isInstance)
                .map(status -> String.valueOf(((Map<?, ?>) status).get("bgpStatus")))
                .findFirst();
    }

    /** Waits until every node's BGPSessionState with BGPPeer {@value PEER} says (or does not say) Established. */
    void awaitSessionStates(boolean established, Duration timeout) {
        Sandbox.poll(
                "every node's BGPSessionState " + (established ? "" : "not ") + "Established",
                timeout,
                () -> network().nodes().stream()
                        .allMatch(n -> sessionState(n)
                                .map(s -> s.equals("Established") == established)
                                .orElse(false)));
    }

    /** {@code lbk8s_bgp_session_transitions_total{peer="router"}} on {@code node}'s /metrics: its session's changes. */
    double sessionTransitions(TestNode node) {
        String metrics = cluster.metrics(node).orElseThrow(() -> new AssertionError("no /metrics on " + node.name()));
        Matcher m = TRANSITIONS.matcher(metrics);
        if (!m.find()) {
            throw new AssertionError("no lbk8s_bgp_session_transitions_total{peer=\"" + PEER + "\"} on " + node.name());
        }
        return Double.parseDouble(m.group(1));
    }

    /** Creates a LoadBalancer Service for pods {@code app=name}, IPv4 from pool {@value POOL}, and returns its address. */
    InetAddress loadBalancer(String name) {
        return loadBalancer(name, "Cluster", true, POOL, "IPv4");
    }

    /** Creates a LoadBalancer Service of {@code family} from {@code pool} and returns its address once assigned. */
    InetAddress loadBalancer(String name, String trafficPolicy, boolean selector, String pool, String family) {
        cluster.client
                .services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withAnnotations(Map.of("metallb.io/address-pool", pool))
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withExternalTrafficPolicy(trafficPolicy)
                        .withIpFamilies(family)
                        .withSelector(selector ? Map.of("app", name) : null)
                        .addNewPort()
                        .withName("http")
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
        return Sandbox.address(cluster.awaitIngressIps("default", name, 1).getFirst());
    }

    /**
     * Creates a LoadBalancer Service for pods {@code app=name}, IPv4 from pool {@value POOL}, and returns its address
     * once the router's FIB routes it over all three nodes.
     */
    InetAddress loadBalancerOverEveryNode(String name) {
        InetAddress ip = loadBalancer(name);
        awaitFibOverEveryNode(ip, "over 3");
        return ip;
    }

    /** Waits until the router's FIB routes {@code ip} over all three nodes (one ECMP route). */
    void awaitFibOverEveryNode(InetAddress ip, String what) {
        router().awaitFib(
                        prefix(ip),
                        r -> r.size() == 1 && r.getFirst().nextHops().size() == 3,
                        what,
                        SOON);
    }

    /**
     * Kills {@code node}'s speaker (SIGKILL: no Cease; the kernel closes its connections) and waits (at most
     * {@link #FAILOVER}) until the router's FIB routes {@code ip} without the node; returns how long after the kill.
     */
    Duration killSpeakerAndTimeFibDrop(TestNode node, InetAddress ip, String what) {
        return timeUntilFibDrops(node, ip, what, () -> cluster.speaker(node).kill());
    }

    /**
     * Freezes {@code node} (SIGSTOP to all its processes) and waits (at most {@link #FAILOVER}) until the router's FIB
     * routes {@code ip} without it; returns how long after the freeze.
     */
    Duration freezeAndTimeFibDrop(TestNode node, InetAddress ip, String what) {
        return timeUntilFibDrops(node, ip, what, () -> network().freeze(node));
    }

    private Duration timeUntilFibDrops(TestNode node, InetAddress ip, String what, Runnable failure) {
        long failedAt = System.nanoTime();
        failure.run();
        router().awaitFib(
                        prefix(ip),
                        r -> r.size() == 1 && !r.getFirst().nextHops().contains(node.ipv4()),
                        what,
                        FAILOVER);
        return Duration.ofNanos(System.nanoTime() - failedAt);
    }

    /** Waits (at most {@link #FAILOVER}) until the router sees {@code node}'s session down and keeps its path stale. */
    void awaitSessionDownAndPathStale(BgpRouter upstream, TestNode node, InetAddress ip) {
        Sandbox.poll(
                upstream.kind() + " to see the killed node's session down and keep its path as stale",
                FAILOVER,
                () -> upstream.session(node.ipv4()).map(s -> !s.established()).orElse(false)
                        && staleNextHops(upstream, prefix(ip)).contains(node.ipv4()));
    }

    /** Waits (at most {@link #FAILOVER}) until the router sees {@code node}'s BFD session down and its path stale. */
    void awaitBfdDownAndPathStale(BgpRouter upstream, TestNode node, InetAddress ip) {
        Sandbox.poll(
                upstream.kind() + " to see the killed node's BFD session down and keep its path as stale",
                FAILOVER,
                () -> bfdDown(upstream, node)
                        && staleNextHops(upstream, prefix(ip)).contains(node.ipv4()));
    }

    /** Starts {@code node}'s killed speaker again and waits until it is Ready and its session with the router is up. */
    void restartKilledSpeaker(TestNode node, BgpRouter upstream) {
        cluster.startSpeaker(node);
        cluster.awaitSpeakerReadyAndMarkPod(node);
        upstream.awaitEstablished(node.ipv4(), SOON);
    }

    /** Waits until none of the router's paths to {@code ip} is stale and all three nodes' are there. */
    void awaitPathsFreshFromEveryNode(BgpRouter upstream, InetAddress ip, String what) {
        Sandbox.poll(
                what,
                SOON,
                () -> staleNextHops(upstream, prefix(ip)).isEmpty()
                        && upstream.nextHops(prefix(ip)).size() == 3);
    }

    /**
     * With graceful restart and BFD on both sides, freezes node-1 (no connection closed) and checks that its path
     * still leaves {@code upstream} within about a second, nothing kept stale: BFD ends the session while it is
     * Established, and a session that ends so starts no graceful restart. Then thaws it, waits for its path, and
     * returns the Service's address.
     */
    InetAddress assertFrozenNodeLeavesDespiteGracefulRestart(BgpRouter upstream, String service) {
        InetAddress ip = loadBalancerOverEveryNode(service);
        TestNode victim = node(0);
        Duration gone = freezeAndTimeFibDrop(victim, ip, "without the frozen node");
        System.out.println(upstream.kind() + ": with BFD and graceful restart, the frozen node's next hop left the FIB"
                + " after " + gone.toMillis() + " ms; " + upstream.session(victim.ipv4()) + ", "
                + upstream.bfdPeers());
        assertThat(gone).isLessThan(Duration.ofSeconds(3));
        assertThat(bfdDown(upstream, victim)).isTrue();
        assertThat(upstream.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(staleNextHops(upstream, prefix(ip))).isEmpty();
        assertThat(curlsAnswered(ip, 5)).isEqualTo(5);

        network().thaw(victim);
        awaitFibOverEveryNode(ip, "back over 3 after the thaw");
        return ip;
    }

    /** Watches the router's FIB for {@code node}'s next hop to {@code ip} until the watch is stopped. */
    FibWatch watchFib(InetAddress ip, TestNode node) {
        return FibWatch.start(router(), prefix(ip), node.ipv4());
    }

    /** How many of {@code count} curls from the remote client through the router to {@code ip} are answered. */
    int curlsAnswered(InetAddress ip, int count) {
        int answered = 0;
        for (int i = 0; i < count; i++) {
            answered += router().remoteClient().curl(ip, CURL).isPresent() ? 1 : 0;
        }
        return answered;
    }

    /**
     * The BGPPeer's {@code enableGracefulRestart}, and whether it references BFDProfile {@value BFD_PROFILE}, for this
     * test: the speakers restart their sessions, and again after the test with the class's BGPPeer.
     */
    void peerWith(boolean gracefulRestart, boolean withBfd) {
        editPeer(spec -> {
            if (gracefulRestart) {
                spec.put("enableGracefulRestart", true);
            } else {
                spec.remove("enableGracefulRestart");
            }
            if (withBfd) {
                spec.put("bfdProfile", BFD_PROFILE);
            } else {
                spec.remove("bfdProfile");
            }
        });
    }

    /**
     * Edits the BGPPeer's spec as {@code kubectl edit} would, for this test: the speakers restart their sessions, and
     * again after the test with the class's BGPPeer.
     */
    void editPeer(Consumer<Map<String, Object>> change) {
        cluster.client
                .genericKubernetesResources("metallb.io/v1beta2", "BGPPeer")
                .inNamespace(Sandbox.NAMESPACE)
                .withName(PEER)
                .edit(peer -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> spec =
                            (Map<String, Object>) peer.getAdditionalProperties().get("spec");
                    if (peerBeforeTest == null) {
                        peerBeforeTest = new LinkedHashMap<>(spec);
                    }
                    change.accept(spec);
                    return peer;
                });
    }

    /**
     * Stops {@code node}'s speaker process alone (SIGSTOP to it and its children) for {@code pause}, then lets it run
     * again (SIGCONT): a speaker starved of CPU, its failure detector silent for that long, the node's other
     * processes running.
     */
    void pauseSpeaker(TestNode node, Duration pause) throws InterruptedException {
        ProcessHandle speaker = ProcessHandle.of(cluster.speaker(node).pid()).orElseThrow();
        List<String> pids = java.util.stream.Stream.concat(java.util.stream.Stream.of(speaker), speaker.descendants())
                .map(p -> String.valueOf(p.pid()))
                .toList();
        signal("STOP", pids);
        try {
            Thread.sleep(pause);
        } finally {
            signal("CONT", pids);
        }
    }

    private static void signal(String signal, List<String> pids) {
        List<String> command = new java.util.ArrayList<>(List.of("kill", "-" + signal));
        command.addAll(pids);
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                kill.destroyForcibly();
                throw new IllegalStateException(command + " failed");
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(command + " interrupted", e);
        }
    }

    /** The host route to {@code ip}: {@code 198.18.7.40/32}. */
    static String prefix(InetAddress ip) {
        return text(ip) + "/32";
    }

    static String text(InetAddress ip) {
        return ip.getHostAddress();
    }
}

package io.lbk8s.testkit.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * The router in front of a {@link TestNetwork}'s nodes: namespace {@code lbk8s-<id>-router}, eth0 on the LAN
 * ({@code 198.18.X.1}, {@code fd00:1b8:X::1}), eth1 towards the {@link #remoteClient() remote client}
 * ({@code 198.19.X.100}, {@code fd00:1b9:X::100}) on a subnet of its own, whose default route is the router. It forwards;
 * which BGP implementation fills its FIB is chosen by {@link #start}, one at a time, so one network can meet FRR, BIRD
 * and GoBGP in turn.
 *
 * <pre>{@code
 * UpstreamRouter router = network.router();
 * BgpRouter frr = router.start(RouterKind.FRR, RouterConfig.of(64500, router.ipv4(),
 *         network.nodes().stream().map(n -> RouterPeer.at(n.ipv4(), 64512)).toList()));
 * frr.awaitEstablished(network.node(1).ipv4(), Duration.ofSeconds(10));
 * router.awaitFib("198.18.7.200/32", routes -> routes.size() == 1 && routes.getFirst().nextHops().size() == 3,
 *         "over three nodes", Duration.ofSeconds(5));
 * router.remoteClient().curl(vip, Duration.ofSeconds(2));   // "node-2\n"
 * frr.close();
 * }</pre>
 */
public final class UpstreamRouter {

    private final TestNetwork network;
    private final Names names;
    private final Addressing addressing;
    private final TestClient remoteClient;
    private BgpRouter running;

    UpstreamRouter(TestNetwork network, Names names, Addressing addressing) {
        this.network = network;
        this.names = names;
        this.addressing = addressing;
        this.remoteClient = new TestClient(
                names.remoteNamespace(),
                Names.INTERFACE,
                addressing.remoteMac(),
                addressing.remoteIpv4(),
                addressing.remoteIpv6());
    }

    /** {@code lbk8s-<id>-router}. */
    public String namespace() {
        return names.routerNamespace();
    }

    /** Its LAN address, {@code 198.18.X.1}: where the nodes' speakers connect. */
    public InetAddress ipv4() {
        return addressing.routerIpv4();
    }

    /** {@code fd00:1b8:X::1}. */
    public InetAddress ipv6() {
        return addressing.routerIpv6();
    }

    /** {@code lbk8s-<id>-remote}: reaches the nodes only through the router, as a user on the internet would. */
    public TestClient remoteClient() {
        return remoteClient;
    }

    /** {@code 198.19.X.0/24}, the remote client's subnet. */
    public String remoteIpv4Subnet() {
        return addressing.remoteIpv4Subnet();
    }

    /** {@code fd00:1b9:X::/64}. */
    public String remoteIpv6Subnet() {
        return addressing.remoteIpv6Subnet();
    }

    /**
     * Starts {@code kind} as the router with {@code config} and returns once its CLI answers (sessions come up later:
     * {@link BgpRouter#awaitEstablished}). One at a time: close the previous one first.
     */
    public synchronized BgpRouter start(RouterKind kind, RouterConfig config) {
        if (running != null && !running.isClosed()) {
            throw new IllegalStateException(running + " still runs in " + namespace() + "; close it first");
        }
        running = network.startRouter(namespace(), kind, config, true);
        return running;
    }

    public FrrRouter startFrr(RouterConfig config) {
        return (FrrRouter) start(RouterKind.FRR, config);
    }

    public BirdRouter startBird(RouterConfig config) {
        return (BirdRouter) start(RouterKind.BIRD, config);
    }

    public GobgpRouter startGobgp(RouterConfig config) {
        return (GobgpRouter) start(RouterKind.GOBGP, config);
    }

    /** The router now running, if any. */
    public synchronized Optional<BgpRouter> running() {
        return Optional.ofNullable(running).filter(r -> !r.isClosed());
    }

    /**
     * Takes the router's LAN leg (eth0) down, as a cable pulled at the router or a router that lost power: nothing
     * closes its BGP connections, the nodes' packets to it go nowhere. Its daemons run on and see the link go.
     */
    public void linkDown() {
        network.setLink(namespace(), Names.INTERFACE, "down");
    }

    /** Brings the router's LAN leg back up; the kernel adds its connected routes again. */
    public void linkUp() {
        network.setLink(namespace(), Names.INTERFACE, "up");
    }

    /**
     * Stops every process in the router's namespace (SIGSTOP), as a hung router: its kernel still forwards and
     * completes TCP handshakes on its listening sockets, but its BGP and BFD daemons send nothing and read nothing.
     */
    public void freeze() {
        network.signalEveryProcess(namespace(), "STOP");
    }

    /** Lets the router's processes run again (SIGCONT); harmless when none is stopped. */
    public void thaw() {
        network.signalEveryProcess(namespace(), "CONT");
    }

    /**
     * The kernel routes for exactly {@code prefix} in the router's namespace ({@code ip -j route show exact}): what
     * forwards the remote client's packets, whichever daemon put it there. Empty when there is none.
     */
    public List<FibRoute> fib(String prefix) {
        String family = prefix.contains(":") ? "-6" : "-4";
        String json = network.run(
                        namespace(),
                        Shell.SETUP_TIMEOUT,
                        Tool.IP.path(),
                        family,
                        "-j",
                        "route",
                        "show",
                        "exact",
                        prefix)
                .stdout();
        return fibRoutes(RouterDaemons.json(json.isBlank() ? "[]" : json));
    }

    /** Waits until the FIB's routes for {@code prefix} satisfy {@code condition}, and returns them. */
    public List<FibRoute> awaitFib(String prefix, Predicate<List<FibRoute>> condition, String what, Duration timeout) {
        return Poll.until(
                "FIB of " + namespace() + " for " + prefix + " " + what, () -> fib(prefix), condition, timeout);
    }

    /** The next hops the kernel uses for {@code prefix}; empty when it has no route. */
    public List<InetAddress> fibNextHops(String prefix) {
        return fib(prefix).stream()
                .flatMap(r -> r.nextHops().stream())
                .distinct()
                .toList();
    }

    /**
     * Starts {@code tcpdump -w pcap} on the router's LAN leg for BGP (TCP port 179), packet-buffered so that what it
     * saw is in the file as soon as it is stopped ({@link NamespacedProcess#stop}); the network stops it at the latest.
     */
    public NamespacedProcess capture(Path pcap) {
        NamespacedProcess tcpdump = network.start(
                namespace(),
                List.of(
                        Tool.TCPDUMP.path(),
                        "-i",
                        Names.INTERFACE,
                        "-U",
                        "--immediate-mode", // else packets wait in the kernel's buffer and a stop loses them
                        "-Z",
                        "root", // writes where the test asks, not as tcpdump's own user
                        "-s",
                        "0",
                        "-w",
                        pcap.toString(),
                        "tcp port 179"),
                Path.of(pcap + ".log"));
        tcpdump.awaitLogLine("listening on", RouterDaemons.START_TIMEOUT);
        return tcpdump;
    }

    static List<FibRoute> fibRoutes(JsonNode routes) {
        List<FibRoute> result = new ArrayList<>();
        for (JsonNode route : routes) {
            List<InetAddress> hops = new ArrayList<>();
            if (route.has("gateway")) {
                hops.add(Addressing.literal(route.path("gateway").asString()));
            }
            route.path("nexthops").forEach(hop -> {
                if (hop.has("gateway")) {
                    hops.add(Addressing.literal(hop.path("gateway").asString()));
                }
            });
            String dst = route.path("dst").asString("");
            InetAddress first = dst.contains("/") ? null : Addressing.literal(dst);
            String prefix = first == null ? dst : dst + (first instanceof Inet6Address ? "/128" : "/32");
            result.add(new FibRoute(prefix, hops, route.path("protocol").asString("")));
        }
        return List.copyOf(result);
    }
}

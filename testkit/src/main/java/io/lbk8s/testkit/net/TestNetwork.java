package io.lbk8s.testkit.net;

import io.lbk8s.testkit.TempFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A layer-2 test LAN made of Linux network namespaces: N nodes and a client on one bridge with MLD
 * snooping, plus a host leg so processes on the host are reachable from the nodes. The topology is described in
 * {@link io.lbk8s.testkit.net the package documentation}. Needs root; check {@link #missingPrerequisites()}.
 *
 * <pre>{@code
 * try (TestNetwork net = TestNetwork.create(3)) {
 *   net.start(net.node(1).namespace(), List.of("speaker", "--interface", "eth0"), log);
 *   assertThat(net.client().arping(net.ipv4PoolAddress(0), Duration.ofSeconds(2))).contains(net.node(1).mac());
 * }
 * }</pre>
 *
 * Everything it creates carries its {@link #id()}; {@link #close()} (also run at JVM exit) removes it
 * all, and {@link #removeStale()} removes what networks of dead processes left.
 */
public final class TestNetwork implements AutoCloseable {

    public static final int DEFAULT_NODE_COUNT = 3;
    public static final int BACKEND_PORT = 8080;
    static final String TEMPORARY_LOGS_PREFIX = "lbk8s-testnet-";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration STOP_GRACE = Duration.ofSeconds(2);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final Pattern TX_PACKETS =
            Pattern.compile("\"ifname\":\"([^\"]+)\".*?\"tx\":\\{\"bytes\":\\d+,\"packets\":(\\d+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Names names;
    private final Addressing addressing;
    private final List<TestNode> nodes;
    private final TestClient client;
    private final boolean standIns;
    private volatile TestClient foreignHost;
    private volatile TestClient controlPlaneHost;
    private volatile UpstreamRouter router;
    private final List<BgpRouter> bgpRouters = new CopyOnWriteArrayList<>();
    private final Path logDirectory;
    private final boolean ownsLogDirectory;
    private final List<NamespacedProcess> processes = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private TestNetwork(
            Names names,
            Addressing addressing,
            int nodeCount,
            Path logDirectory,
            boolean ownsLogDirectory,
            boolean standIns) {
        this.names = names;
        this.standIns = standIns;
        this.addressing = addressing;
        this.nodes = IntStream.rangeClosed(1, nodeCount)
                .mapToObj(n -> new TestNode(
                        Names.nodeName(n),
                        names.nodeNamespace(n),
                        Names.INTERFACE,
                        addressing.nodeMac(n),
                        addressing.nodeIpv4(n),
                        addressing.nodeIpv6(n)))
                .toList();
        this.client = new TestClient(
                names.clientNamespace(),
                Names.INTERFACE,
                addressing.clientMac(),
                addressing.clientIpv4(),
                addressing.clientIpv6());
        this.logDirectory = logDirectory;
        this.ownsLogDirectory = ownsLogDirectory;
        this.shutdownHook = Thread.ofPlatform()
                .name("lbk8s-testnet-" + names.id() + "-cleanup")
                .unstarted(() -> {
                    try {
                        close();
                    } catch (RuntimeException e) {
                        System.err.println("lbk8s test network " + names.id() + ": " + e.getMessage());
                    }
                });
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static TestNetwork create() throws IOException {
        return create(DEFAULT_NODE_COUNT);
    }

    /** Builds everything and returns once every backend answers over IPv4 and IPv6 and snooping filters. */
    public static TestNetwork create(int nodeCount) throws IOException {
        return create(nodeCount, null);
    }

    /**
     * As {@link #create(int)}, with the backends' logs in {@code logDirectory}, which is kept;
     * {@code null} for a temporary directory deleted by {@link #close()}.
     */
    public static TestNetwork create(int nodeCount, Path logDirectory) throws IOException {
        return create(nodeCount, logDirectory, true);
    }

    /**
     * The LAN alone, for a real Kubernetes on it ({@code io.lbk8s.testkit.cluster}): no backends on the nodes and no
     * nftables rule standing in for kube-proxy, since the real kube-proxy and real Pods take their places.
     */
    public static TestNetwork createBare(int nodeCount, Path logDirectory) throws IOException {
        return create(nodeCount, logDirectory, false);
    }

    private static TestNetwork create(int nodeCount, Path logDirectory, boolean standIns) throws IOException {
        if (nodeCount < 1 || nodeCount > Addressing.MAX_NODES) {
            throw new IllegalArgumentException("nodeCount must be 1.." + Addressing.MAX_NODES + ": " + nodeCount);
        }
        Optional<String> missing = missingPrerequisites();
        if (missing.isPresent()) {
            throw new IOException("cannot create a test network: " + missing.get());
        }
        TestNetwork network;
        // Locked until the host leg exists: its route is what keeps the next network off this subnet.
        try (AutoCloseable ignored = Owners.lock()) {
            try {
                removeStaleLocked();
            } catch (IOException e) {
                // Leftovers of others should not stop this network; they are reported so someone removes them.
                System.err.println("lbk8s test network: could not remove stale networks: " + e.getMessage());
            }
            Names names = new Names(freeId());
            Addressing addressing = new Addressing(freeOctet());
            boolean ownsLogs = logDirectory == null;
            Path logs = ownsLogs
                    ? Files.createTempDirectory(TEMPORARY_LOGS_PREFIX + names.id() + "-")
                    : Files.createDirectories(logDirectory);
            // Before anything of the id exists, so that nothing can exist without a recorded owner.
            Owners.write(names.id(), Owners.Owner.current(addressing.octet()));
            network = new TestNetwork(names, addressing, nodeCount, logs, ownsLogs, standIns);
            try {
                new Topology(names, addressing, nodeCount).build(standIns);
            } catch (IOException | RuntimeException e) {
                network.closeAfterFailure(e);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
        try {
            if (standIns) {
                network.startBackends();
            }
            network.awaitReady();
        } catch (IOException | RuntimeException e) {
            network.closeAfterFailure(e);
            throw e;
        }
        return network;
    }

    /** Four hex digits in every name of this network: {@code lbk8s-<id>-node-1}. */
    public String id() {
        return names.id();
    }

    /** {@code 198.18.X.254}: the host's end of the host leg, where nodes reach host processes. */
    public InetAddress hostAddress() {
        return addressing.hostIpv4();
    }

    /** The host's interface of the host leg: {@code lbk8s<id>h}. */
    public String hostInterface() {
        return names.hostLeg();
    }

    public List<TestNode> nodes() {
        return nodes;
    }

    /** 1-based: {@code node(1)} is node-1. */
    public TestNode node(int number) {
        if (number < 1 || number > nodes.size()) {
            throw new IndexOutOfBoundsException("node must be 1.." + nodes.size() + ": " + number);
        }
        return nodes.get(number - 1);
    }

    public TestClient client() {
        return client;
    }

    /** {@code 198.18.X.200-198.18.X.250}, for a MetalLB IPAddressPool; on no interface. */
    public String ipv4Pool() {
        return addressing.ipv4Pool();
    }

    /** {@code fd00:1b8:X::200-fd00:1b8:X::250}, for a MetalLB IPAddressPool; on no interface. */
    public String ipv6Pool() {
        return addressing.ipv6Pool();
    }

    /** The {@code index}-th address of the IPv4 pool, 0..50: {@code 198.18.X.200} first. */
    public InetAddress ipv4PoolAddress(int index) {
        return addressing.ipv4PoolAddress(index);
    }

    /** The {@code index}-th address of the IPv6 pool in range order, 0..80 (0x50): ::200, ..., ::209, ::20a. */
    public InetAddress ipv6PoolAddress(int index) {
        return addressing.ipv6PoolAddress(index);
    }

    /** {@code 198.18.X.0/24}. */
    public String ipv4Subnet() {
        return addressing.ipv4Subnet();
    }

    /** {@code fd00:1b8:X::/64}. */
    public String ipv6Subnet() {
        return addressing.ipv6Subnet();
    }

    /**
     * Another host on the LAN, neither a node nor the client (a printer, a forgotten VM): namespace
     * {@code lbk8s-<id>-foreign}, eth0 {@code 02:1b:8a:00:00:f1}, {@code 198.18.X.150/24} and
     * {@code fd00:1b8:X::150/64}; created on the first call, removed with the network. Tests give it pool addresses
     * ({@code ip addr add}) to see what lbk8s does when another host uses one.
     */
    public synchronized TestClient foreignHost() throws IOException {
        ensureOpen();
        if (foreignHost == null) {
            new Topology(names, addressing, nodes.size())
                    .addHost(
                            names.foreignNamespace(),
                            Names.FOREIGN_PORT,
                            addressing.foreignPortMac(),
                            addressing.foreignMac(),
                            addressing.foreignIpv4(),
                            addressing.foreignIpv6());
            foreignHost = new TestClient(
                    names.foreignNamespace(),
                    Names.INTERFACE,
                    addressing.foreignMac(),
                    addressing.foreignIpv4(),
                    addressing.foreignIpv6());
        }
        return foreignHost;
    }

    /**
     * The host that runs a real cluster's control plane (etcd, kube-apiserver, kube-controller-manager,
     * kube-scheduler): namespace {@code lbk8s-<id>-control}, eth0 {@code 02:1b:8a:00:00:e1}, {@code 198.18.X.5/24}
     * and {@code fd00:1b8:X::5/64}; created on the first call, removed with the network. On the LAN like the nodes, so
     * that a node cut off from the LAN is cut off from the API server too, as on real hardware.
     */
    public synchronized TestClient controlPlaneHost() throws IOException {
        ensureOpen();
        if (controlPlaneHost == null) {
            new Topology(names, addressing, nodes.size())
                    .addHost(
                            names.controlNamespace(),
                            Names.CONTROL_PORT,
                            addressing.controlPortMac(),
                            addressing.controlMac(),
                            addressing.controlIpv4(),
                            addressing.controlIpv6());
            controlPlaneHost = new TestClient(
                    names.controlNamespace(),
                    Names.INTERFACE,
                    addressing.controlMac(),
                    addressing.controlIpv4(),
                    addressing.controlIpv6());
        }
        return controlPlaneHost;
    }

    /**
     * The upstream router with a remote client behind it (see {@link UpstreamRouter}); created on the first call,
     * removed with the network. Creating it also gives every node a route to the remote client's subnet through it.
     */
    public synchronized UpstreamRouter router() throws IOException {
        ensureOpen();
        if (router == null) {
            new Topology(names, addressing, nodes.size()).addRouter();
            router = new UpstreamRouter(this, names, addressing);
        }
        return router;
    }

    /**
     * A real BGP implementation on a node, as a stand-in for a speaker (e.g. to compare lbk8s with GoBGP); it programs
     * no FIB. Stopped by {@link BgpRouter#close()} or with the network.
     */
    public BgpRouter startSpeaker(TestNode node, RouterKind kind, RouterConfig config) {
        return startRouter(node.namespace(), kind, config, false);
    }

    /** Why {@code kind} cannot run here (a missing package); empty when it can. */
    public static Optional<String> missingPrerequisites(RouterKind kind) {
        return RouterTool.missingFor(kind);
    }

    BgpRouter startRouter(String namespace, RouterKind kind, RouterConfig config, boolean programsFib) {
        ensureOpen();
        RouterTool.missingFor(kind).ifPresent(missing -> {
            throw new IllegalStateException("cannot start " + kind + ": " + missing);
        });
        BgpRouter started = switch (kind) {
            case FRR -> FrrRouter.start(this, namespace, config);
            case BIRD -> BirdRouter.start(this, namespace, config, programsFib);
            case GOBGP -> GobgpRouter.start(this, namespace, config, programsFib);
        };
        bgpRouters.add(started);
        return started;
    }

    /** {@code lbk8s-<id>-br}, where {@code br0} is. */
    public String bridgeNamespace() {
        return names.bridgeNamespace();
    }

    /** Every namespace of this network: nodes, client, bridge, and the foreign host and router once there are. */
    public List<String> namespaces() {
        List<String> all = new ArrayList<>(names.namespaces(nodes.size()));
        if (foreignHost != null) {
            all.addFirst(names.foreignNamespace());
        }
        if (controlPlaneHost != null) {
            all.addFirst(names.controlNamespace());
        }
        if (router != null) {
            all.addFirst(names.remoteNamespace());
            all.addFirst(names.routerNamespace());
        }
        return List.copyOf(all);
    }

    /** Where the backends log (and where a test may put its own logs). */
    public Path logDirectory() {
        return logDirectory;
    }

    /**
     * Starts {@code ip netns exec <namespace> <command...>} with stdout and stderr appended to
     * {@code logFile}. The network stops it (SIGTERM, then SIGKILL for it and its children) on close.
     */
    public NamespacedProcess start(String namespace, List<String> command, Path logFile) {
        ensureOpen();
        if (!namespaces().contains(namespace)) {
            throw new IllegalArgumentException(
                    namespace + " is not a namespace of test network " + id() + "; its namespaces are " + namespaces());
        }
        if (command.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        try {
            Path parent = logFile.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            long offset = Files.exists(logFile) ? Files.size(logFile) : 0;
            Process process = Shell.builder(Shell.inNamespace(namespace, command))
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()))
                    .start();
            NamespacedProcess started = new NamespacedProcess(namespace, command, logFile, offset, process);
            processes.add(started);
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start `" + Shell.commandLine(command) + "` in " + namespace, e);
        }
    }

    /** Processes started with {@link #start} (and the backends), running or not. */
    public List<NamespacedProcess> processes() {
        return List.copyOf(processes);
    }

    /** Runs a command to completion in one of this network's namespaces. */
    public CommandResult run(String namespace, Duration timeout, String... command) {
        ensureOpen();
        if (!namespaces().contains(namespace)) {
            throw new IllegalArgumentException(namespace + " is not a namespace of test network " + id());
        }
        return Shell.run(timeout, Shell.inNamespace(namespace, List.of(command)));
    }

    /** Takes the node's eth0 down, as a cable pulled on the node; its addresses stay (keep_addr_on_down). */
    public void linkDown(TestNode node) {
        setLink(node, "down");
    }

    /** Brings the node's eth0 back up; the kernel then reports its multicast memberships again. */
    public void linkUp(TestNode node) {
        setLink(node, "up");
    }

    /**
     * Stops every process in the node's namespace (SIGSTOP), as a hung node: its kernel still runs, so it still
     * forwards, accepts TCP handshakes and runs XDP programs, but no process of it does anything.
     */
    public void freeze(TestNode node) {
        signalEveryProcess(node.namespace(), "STOP");
    }

    /** Lets the node's processes run again (SIGCONT). */
    public void thaw(TestNode node) {
        signalEveryProcess(node.namespace(), "CONT");
    }

    /** Sends {@code signal} (e.g. {@code STOP}) to every process in {@code namespace}, a node's or the router's. */
    void signalEveryProcess(String namespace, String signal) {
        CommandResult pids = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "netns", "pids", namespace));
        if (!pids.ok()) {
            throw new IllegalStateException(
                    "ip netns pids " + namespace + ": " + pids.output().strip());
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(command::add);
        if (command.size() > 2) {
            CommandResult result = Shell.run(Shell.SETUP_TIMEOUT, command);
            // a process that ended between the listing and the signal (a backend's connection handler) is no failure
            boolean onlyGone = result.output().lines().allMatch(l -> l.isBlank() || l.contains("No such process"));
            if (!result.ok() && !onlyGone) {
                throw new IllegalStateException(
                        Shell.commandLine(command) + ": " + result.output().strip());
            }
        }
    }

    /** Makes the node refuse connections to its backend (also via the pool DNAT), as a failing pod. */
    public void blockService(TestNode node) {
        nft(
                node,
                "add",
                "rule",
                "inet",
                Topology.KUBE_PROXY_TABLE,
                "input",
                "tcp",
                "dport",
                Integer.toString(BACKEND_PORT),
                "reject",
                "with",
                "tcp",
                "reset");
    }

    /** A firewall on the node that drops UDP to and from {@code port} (both directions), as a blocked port would. */
    public void blockUdp(TestNode node, int port) {
        for (String chain : List.of("firewall-in", "firewall-out")) {
            nft(
                    node,
                    "add",
                    "rule",
                    "inet",
                    Topology.KUBE_PROXY_TABLE,
                    chain,
                    "udp",
                    "dport",
                    Integer.toString(port),
                    "drop");
        }
    }

    /** Drops UDP to {@code port} coming in from {@code source} only: one direction of one pair of nodes cut. */
    public void blockUdpFrom(TestNode node, TestNode source, int port) {
        nft(
                node,
                "add",
                "rule",
                "inet",
                Topology.KUBE_PROXY_TABLE,
                "firewall-in",
                "ip",
                "saddr",
                Addressing.text(source.ipv4()),
                "udp",
                "dport",
                Integer.toString(port),
                "drop");
    }

    /**
     * A firewall on the node that drops TCP to and from {@code port} of {@code server} (both directions), as a network
     * partition between the node and that server would: nothing is refused, packets just go unanswered.
     */
    public void blockTcp(TestNode node, InetAddress server, int port) {
        String family = server instanceof Inet6Address ? "ip6" : "ip";
        nft(
                node,
                "add",
                "rule",
                "inet",
                Topology.KUBE_PROXY_TABLE,
                "firewall-out",
                family,
                "daddr",
                Addressing.text(server),
                "tcp",
                "dport",
                Integer.toString(port),
                "drop");
        nft(
                node,
                "add",
                "rule",
                "inet",
                Topology.KUBE_PROXY_TABLE,
                "firewall-in",
                family,
                "saddr",
                Addressing.text(server),
                "tcp",
                "sport",
                Integer.toString(port),
                "drop");
    }

    /** Removes what {@link #blockUdp}, {@link #blockUdpFrom} and {@link #blockTcp} added on the node. */
    public void openFirewall(TestNode node) {
        for (String chain : List.of("firewall-in", "firewall-out")) {
            nft(node, "flush", "chain", "inet", Topology.KUBE_PROXY_TABLE, chain);
        }
    }

    public void unblockService(TestNode node) {
        nft(node, "flush", "chain", "inet", Topology.KUBE_PROXY_TABLE, "input");
    }

    /**
     * The bridge's multicast database, one entry a line as {@code bridge mdb show} prints it, e.g.
     * {@code port node-1 grp ff02::1:ff00:11 temp}: which port joined which group.
     */
    public List<String> multicastGroups() {
        CommandResult result = Shell.run(
                Shell.SETUP_TIMEOUT, List.of(Tool.BRIDGE.path(), "-n", names.bridgeNamespace(), "mdb", "show"));
        return result.stdout()
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .map(l -> l.startsWith("dev " + Names.BRIDGE + " ")
                        ? l.substring(("dev " + Names.BRIDGE + " ").length())
                        : l)
                .toList();
    }

    /**
     * Stops the processes it started, deletes its namespaces (which takes the veths with them) and the
     * host leg, and checks that nothing of its id is left. Idempotent; also run at JVM exit.
     *
     * @throws IllegalStateException naming what could not be removed
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | SecurityException alreadyShuttingDown) {
            // running from the hook itself
        }
        List<String> problems = new ArrayList<>();
        // Before the processes: each router removes what its daemons leave outside the namespaces (FRR's /var/tmp/frr).
        bgpRouters.forEach(BgpRouter::close);
        stopProcesses();
        try {
            Leftovers.remove(id());
        } catch (IOException | RuntimeException e) {
            problems.add(e.getMessage());
        }
        problems.addAll(Leftovers.remaining(id()));
        processes.stream().filter(NamespacedProcess::isAlive).forEach(p -> problems.add("process " + p));
        if (ownsLogDirectory) {
            TempFiles.deleteRecursively(logDirectory);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("test network " + id() + " left behind: " + String.join("; ", problems));
        }
    }

    /**
     * Removes what networks of dead processes left behind (namespaces, host legs, processes in them,
     * owner files). Networks whose owner process lives are left alone.
     *
     * @return how many networks were removed
     */
    public static int removeStale() {
        try (AutoCloseable ignored = Owners.lock()) {
            return removeStaleLocked();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Why a test network cannot be created here, e.g. "needs root ..."; empty when it can. */
    public static Optional<String> missingPrerequisites() {
        List<String> missing = new ArrayList<>();
        if (!Prerequisites.hasNetworkCapabilities()) {
            missing.add("needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN, for ip netns)");
        }
        for (Tool tool : Tool.values()) {
            if (!tool.installed()) {
                missing.add("needs the command " + tool.command() + " (Debian package " + tool.debianPackage() + ")");
            }
        }
        return missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing));
    }

    @Override
    public String toString() {
        return "TestNetwork[" + id() + " " + ipv4Subnet() + " " + ipv6Subnet() + " " + nodes.size() + " nodes]";
    }

    private static int removeStaleLocked() throws IOException {
        int removed = 0;
        List<String> problems = new ArrayList<>();
        for (String id : Leftovers.allIds()) {
            if (Owners.read(id).map(Owners.Owner::alive).orElse(false)) {
                continue;
            }
            try {
                if (Leftovers.remove(id)) {
                    removed++;
                }
                removeTemporaryLogs(id);
            } catch (IOException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IOException(String.join("; ", problems));
        }
        return removed;
    }

    /** The log directory {@link #create} made for a network whose owner died before closing it. */
    private static void removeTemporaryLogs(String id) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(p -> p.getFileName().toString().startsWith(TEMPORARY_LOGS_PREFIX + id + "-")
                            && Files.isDirectory(p))
                    .forEach(TempFiles::deleteRecursively);
        }
    }

    private static String freeId() {
        Set<String> taken = Leftovers.allIds();
        for (int attempt = 0; attempt < 100; attempt++) {
            String id = HexFormat.of().toHexDigits((short) RANDOM.nextInt(1 << 16));
            if (!taken.contains(id)) {
                return id;
            }
        }
        throw new IllegalStateException("no free network id among " + taken.size() + " taken");
    }

    /** A third octet whose 198.18.X.0/24 no host route, host address or other live network uses. */
    private static int freeOctet() throws IOException {
        List<HostRoutes.Prefix> inUse = HostRoutes.inUse(
                Shell.check(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "-4", "route", "show", "table", "all")),
                Shell.check(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "-4", "-o", "address", "show")));
        Set<Integer> ofOtherNetworks = new HashSet<>();
        Owners.ids().forEach(id -> Owners.read(id).ifPresent(owner -> ofOtherNetworks.add(owner.octet())));
        int start = 1 + RANDOM.nextInt(254); // random, so two hosts' leftovers rarely agree
        for (int i = 0; i < 254; i++) {
            int octet = 1 + (start - 1 + i) % 254;
            if (!ofOtherNetworks.contains(octet) && HostRoutes.free(octet, inUse)) {
                return octet;
            }
        }
        throw new IOException("no free /24 in 198.18.0.0/16: every one overlaps a host route or another network");
    }

    private void startBackends() throws IOException {
        List<NamespacedProcess> listeners = new ArrayList<>();
        for (TestNode node : nodes) {
            Path script = Backend.writeScript(logDirectory, node);
            for (InetAddress address : List.of(node.ipv4(), node.ipv6())) {
                String family = address instanceof Inet6Address ? "ipv6" : "ipv4";
                listeners.add(start(
                        node.namespace(),
                        Backend.command(address, script),
                        logDirectory.resolve("backend-" + node.name() + "-" + family + ".log")));
            }
        }
        for (NamespacedProcess listener : listeners) {
            listener.awaitLogLine(Backend.LISTENING, READY_TIMEOUT);
        }
    }

    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (TestNode node : standIns ? nodes : List.<TestNode>of()) {
            for (InetAddress address : List.of(node.ipv4(), node.ipv6())) {
                String url = TestClient.url(address, BACKEND_PORT);
                while (!client.curl(url, PROBE_TIMEOUT)
                        .filter(node.backendBody()::equals)
                        .isPresent()) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("backend of " + node.name() + " does not answer " + url
                                + " from the client within " + READY_TIMEOUT);
                    }
                    Leftovers.sleep(Duration.ofMillis(50));
                }
            }
        }
        awaitSnoopingFilters(deadline);
    }

    /**
     * The bridge's querier holds off filtering for a response interval after it starts; until then it
     * floods like a plain hub and a missing MLD join would go unnoticed. Solicits an address nobody
     * uses until no other port receives the solicitation.
     */
    private void awaitSnoopingFilters(long deadline) throws IOException {
        while (true) {
            List<Long> before = otherPortsTxPackets();
            client.run(
                    PROBE_TIMEOUT,
                    Tool.NDISC6.path(),
                    "-q",
                    "-n",
                    "-1",
                    "-r",
                    "1",
                    "-w",
                    "50",
                    Addressing.text(addressing.unusedIpv6()),
                    Names.INTERFACE);
            if (before.equals(otherPortsTxPackets())) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the bridge still floods unjoined IPv6 multicast after " + READY_TIMEOUT
                        + ": MLD snooping or its querier is not working");
            }
            Leftovers.sleep(Duration.ofMillis(100));
        }
    }

    /** Frames sent by the bridge to every port but the client's. */
    private List<Long> otherPortsTxPackets() throws IOException {
        String json = Shell.check(
                Shell.SETUP_TIMEOUT,
                List.of(Tool.IP.path(), "-n", names.bridgeNamespace(), "-s", "-j", "link", "show"));
        List<Long> counts = new ArrayList<>();
        Matcher m = TX_PACKETS.matcher(json);
        while (m.find()) {
            String port = m.group(1);
            if (!port.equals(Names.CLIENT_PORT) && !port.equals(Names.BRIDGE) && !port.equals("lo")) {
                counts.add(Long.parseLong(m.group(2)));
            }
        }
        // Every node port and the host port; fewer means the output format changed and the check would be vacuous.
        if (counts.size() != nodes.size() + 1) {
            throw new IOException("expected tx counters of " + (nodes.size() + 1) + " bridge ports, found "
                    + counts.size() + " in: " + json);
        }
        return counts;
    }

    private void setLink(TestNode node, String state) {
        setLink(node.namespace(), node.interfaceName(), state);
    }

    /** {@code ip link set <link> <state>} in {@code namespace}, a node's or the router's. */
    void setLink(String namespace, String link, String state) {
        CommandResult result = run(namespace, Shell.SETUP_TIMEOUT, Tool.IP.path(), "link", "set", link, state);
        if (!result.ok()) {
            throw new IllegalStateException("ip link set " + link + " " + state + " in " + namespace + ": "
                    + result.output().strip());
        }
    }

    private void nft(TestNode node, String... arguments) {
        String[] command =
                Stream.concat(Stream.of(Tool.NFT.path()), Stream.of(arguments)).toArray(String[]::new);
        CommandResult result = run(node.namespace(), Shell.SETUP_TIMEOUT, command);
        if (!result.ok()) {
            throw new IllegalStateException("`" + Shell.commandLine(List.of(command)) + "` in " + node.namespace()
                    + ": " + result.output().strip());
        }
    }

    /** TERM to all at once (so they stop in parallel), a shared grace period, then KILL to what is left. */
    private void stopProcesses() {
        List<List<ProcessHandle>> trees = processes.stream()
                .map(p -> Stream.concat(
                                Stream.of(p.process().toHandle()),
                                p.process().toHandle().descendants())
                        .toList())
                .toList();
        processes.forEach(NamespacedProcess::terminate);
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        for (NamespacedProcess p : processes) {
            p.waitFor(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        trees.forEach(tree -> tree.forEach(ProcessHandle::destroyForcibly));
        processes.forEach(p -> p.waitFor(Duration.ofSeconds(1)));
    }

    private void closeAfterFailure(Exception cause) {
        try {
            close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("test network " + id() + " is closed");
        }
    }
}

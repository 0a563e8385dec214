package io.lbk8s.demo;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The demo's steps, on a {@link Sandbox}: the reference design's example (a pool and a whoami LoadBalancer Service),
 * then what a user on the LAN sees, over IPv4 and IPv6. Prints as it goes; every figure is measured here.
 */
final class Demo implements Walkthrough {
    static final String SERVICE_NAMESPACE = "default";
    private static final Duration SOON = Duration.ofSeconds(20);
    private static final Duration POLL = Duration.ofMillis(20);
    /** Answers from the new node to see after a handover before calling it done, so a flap would show. */
    private static final int SETTLED_ANSWERS = 10;

    private final Console console;
    private final Path logs;
    private final Interruption interruption;
    private volatile Sandbox sandbox;
    private final List<FamilyResult> results = new ArrayList<>();
    private final boolean bgp;
    private volatile BgpWalkthrough bgpWalkthrough;

    Demo(Console console, Path logs, Interruption interruption, boolean bgp) {
        this.console = console;
        this.logs = logs;
        this.interruption = interruption;
        this.bgp = bgp;
    }

    /** The sandbox once started, for the teardown; empty while it is being built (it then cleans up itself). */
    Optional<Sandbox> sandbox() {
        return Optional.ofNullable(sandbox);
    }

    @Override
    public String title() {
        return "a MetalLB-compatible "
                + (bgp ? "load balancer in BGP mode, behind an FRR router" : "layer-2 load balancer")
                + ", on a sandbox LAN on this machine";
    }

    @Override
    public String what() {
        return "sandbox";
    }

    @Override
    public Teardown.Result teardown(Optional<Path> directory) {
        return Teardown.run(sandbox(), directory);
    }

    @Override
    public void run() throws Exception {
        startSandbox();
        if (bgp) {
            bgpWalkthrough = new BgpWalkthrough(console, sandbox, logs, this::createService);
            bgpWalkthrough.run();
            return;
        }
        applyExample();

        console.heading("1. The Service gets an address");
        Created v4 = createService("whoami", false);
        console.heading("2. The client finds it on the LAN: ARP, then curl");
        Reached reached4 = reach(v4);
        console.heading(
                "3. The leader's node drops off the LAN (its link goes down; nothing tells Kubernetes), the client keeps calling");
        Handover handover4 = failLeader(v4, reached4.leader(), Failure.LINK_DOWN);
        results.add(new FamilyResult(
                "IPv4",
                v4.name(),
                Format.address(v4.ip()),
                v4.assignedIn(),
                reached4.leader().name(),
                reached4.leader().mac(),
                reached4.curlNode(),
                handover4));

        console.heading("4. The same over IPv6: an address, NDP and curl; the leader's speaker stops (SIGTERM)");
        Created v6 = createService("whoami-v6", true);
        Reached reached6 = reach(v6);
        Handover handover6 = failLeader(v6, reached6.leader(), Failure.SIGTERM);
        results.add(new FamilyResult(
                "IPv6",
                v6.name(),
                Format.address(v6.ip()),
                v6.assignedIn(),
                reached6.leader().name(),
                reached6.leader().mac(),
                reached6.curlNode(),
                handover6));

        console.heading("Summary");
        console.lines(Summary.table(results).lines(""));
        console.line("");
        console.lines(Summary.legend(results));
    }

    // ---- the sandbox ----

    private void startSandbox() throws Exception {
        console.heading("Sandbox: a LAN of network namespaces, an embedded Kubernetes API, the controller, 3 speakers");
        console.line("logs and kubeconfig in " + logs);
        try (var progress = console.progress("building the sandbox")) {
            Thread phases = Thread.ofVirtual().start(() -> showPhases(progress));
            try {
                // Kept whole: if it fails it removes its network itself, which an interrupt could cut short. Assigned
                // inside, since a signal meanwhile throws on return, and the teardown must still find the sandbox.
                interruption.shielded(() -> sandbox = Sandbox.start(logs));
            } finally {
                phases.interrupt();
            }
            progress.done("network " + sandbox.network.id());
        }
        TestNetwork network = sandbox.network;
        var nodes = TextTable.of("NAME", "NAMESPACE", "MAC", "IPV4", "IPV6", "RUNS");
        for (TestNode node : network.nodes()) {
            nodes = nodes.row(
                    node.name(),
                    node.namespace(),
                    node.mac(),
                    Format.address(node.ipv4()),
                    Format.address(node.ipv6()),
                    "lbk8s speaker, backend answering \"" + node.name() + "\"");
        }
        var client = network.client();
        nodes = nodes.row(
                "client",
                client.namespace(),
                client.mac(),
                Format.address(client.ipv4()),
                Format.address(client.ipv6()),
                "arping, ndisc6, curl");
        console.lines(nodes.lines(""));
        console.line("bridge namespace " + network.bridgeNamespace() + "; host interface " + network.hostInterface()
                + " (" + Format.address(network.hostAddress()) + "), where the API server and the controller run");
        console.line("Kubernetes API " + sandbox.client.getMasterUrl() + " (" + sandbox.apiServerDescription() + ")");
    }

    /** The sandbox starts in one call; its log files appearing tell how far it got. */
    private void showPhases(Console.Progress progress) {
        while (!Thread.currentThread().isInterrupted()) {
            long speakers;
            try (var files = Files.list(logs)) {
                speakers = files.filter(f -> f.getFileName().toString().startsWith("speaker-"))
                        .count();
            } catch (IOException e) {
                speakers = 0;
            }
            progress.detail(
                    speakers > 0
                            ? "starting " + speakers + " speaker(s)"
                            : Files.exists(logs.resolve("controller.log"))
                                    ? "starting the controller"
                                    : Files.exists(logs.resolve("api-server.log"))
                                            ? "starting the Kubernetes API"
                                            : "creating namespaces, bridge and backends");
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void applyExample() {
        TestNetwork network = sandbox.network;
        // The reference design's pool is 10.5.0.200-10.5.0.220 on Talos's Docker network; here the same 21
        // addresses of the sandbox's own subnet, and as many of its IPv6 subnet.
        String v4 = Format.address(network.ipv4PoolAddress(0)) + "-" + Format.address(network.ipv4PoolAddress(20));
        String v6 = Format.address(network.ipv6PoolAddress(0)) + "-" + Format.address(network.ipv6PoolAddress(20));
        console.heading("kubectl apply: the example of the reference design (a pool, an L2Advertisement, a Service)");
        sandbox.createMetallb("IPAddressPool", "default", "{addresses: ['" + v4 + "', '" + v6 + "']}");
        console.line("IPAddressPool   lbk8s-system/default   addresses: [" + v4 + ", " + v6 + "]");
        sandbox.createMetallb("L2Advertisement", "default", "{ipAddressPools: [default]}");
        console.line("L2Advertisement lbk8s-system/default   ipAddressPools: [default]");
    }

    // ---- step 1: an address ----

    record Created(String name, InetAddress ip, Duration assignedIn) {}

    Created createService(String name, boolean ipv6) throws InterruptedException {
        var spec = new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(SERVICE_NAMESPACE)
                .withLabels(Map.of("app", name))
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withSelector(Map.of("app", name))
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withProtocol("TCP")
                .endPort()
                .endSpec();
        if (ipv6) {
            spec.editSpec()
                    .withIpFamilies("IPv6")
                    .withIpFamilyPolicy("SingleStack")
                    .endSpec();
        }
        long started = System.nanoTime();
        sandbox.client.services().resource(spec.build()).create();
        console.line("kubectl apply: Service " + SERVICE_NAMESPACE + "/" + name + ", type LoadBalancer, port 80"
                + (ipv6 ? ", ipFamilies: [IPv6]" : ""));
        // Printed as `kubectl get svc -w` would: the pending row now, the row with the address when it comes.
        String widestAddress =
                Format.address(ipv6 ? sandbox.network.ipv6PoolAddress(20) : sandbox.network.ipv4PoolAddress(20));
        var table = TextTable.of("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "")
                .sizedFor(name, "LoadBalancer", "", widestAddress, "", "");
        table = table.row(serviceRow(sandbox.service(SERVICE_NAMESPACE, name), "just created")
                .toArray(String[]::new));
        console.lines(table.lines(""));
        String ip;
        Duration took;
        try (var progress = console.liveOnly("waiting for the controller to assign an address")) {
            ip = Wait.until(
                    name + " to get an address",
                    SOON,
                    POLL,
                    () -> sandbox.ingressIps(SERVICE_NAMESPACE, name).stream().findFirst());
            took = Duration.ofNanos(System.nanoTime() - started);
        }
        table = table.row(serviceRow(sandbox.service(SERVICE_NAMESPACE, name), "after " + Format.duration(took))
                .toArray(String[]::new));
        console.line(table.line("", 1));
        return new Created(name, Sandbox.address(ip), took);
    }

    private static List<String> serviceRow(Service s, String when) {
        List<String> ingress = s.getStatus() == null
                        || s.getStatus().getLoadBalancer() == null
                        || s.getStatus().getLoadBalancer().getIngress() == null
                ? List.of()
                : s.getStatus().getLoadBalancer().getIngress().stream()
                        .map(i -> i.getIp())
                        .toList();
        String ports = s.getSpec().getPorts().stream()
                .map(p -> p.getPort() + (p.getNodePort() == null ? "" : ":" + p.getNodePort()) + "/" + p.getProtocol())
                .collect(Collectors.joining(","));
        return List.of(
                s.getMetadata().getName(),
                s.getSpec().getType(),
                Optional.ofNullable(s.getSpec().getClusterIP()).orElse("<none>"),
                ingress.isEmpty() ? "<pending>" : String.join(",", ingress),
                ports,
                "(" + when + ")");
    }

    // ---- step 2: ARP/NDP and curl ----

    private record Reached(TestNode leader, String curlNode) {}

    private Reached reach(Created service) throws InterruptedException {
        InetAddress ip = service.ip();
        boolean v6 = ip instanceof Inet6Address;
        String announcedBy;
        try (var progress = console.progress("waiting for a speaker to announce " + Format.address(ip))) {
            announcedBy =
                    Wait.until("a ServiceL2Status for " + service.name(), SOON, POLL, () -> statusNode(service.name()));
            progress.done("node " + announcedBy + " (kubectl get servicel2statuses -n lbk8s-system)");
        }
        sandbox.events(SERVICE_NAMESPACE, service.name()).stream()
                .filter(e -> "nodeAssigned".equals(e.getReason()))
                .reduce((a, b) -> b)
                .ifPresent(e -> console.line("Event nodeAssigned on " + service.name() + ": " + e.getMessage()));

        var client = sandbox.network.client();
        String tool = v6 ? "ndisc6 " + Format.address(ip) + " eth0" : "arping -c 1 -I eth0 " + Format.address(ip);
        String mac;
        try (var progress = console.progress("client$ " + tool)) {
            mac = Wait.until(
                    "an answer to " + tool,
                    SOON,
                    Duration.ofMillis(100),
                    () -> v6 ? client.ndisc6(ip, Duration.ofSeconds(1)) : client.arping(ip, Duration.ofSeconds(1)));
            progress.done("answered by " + mac);
        }
        TestNode leader = sandbox.nodeWithMac(mac);
        console.line("  " + mac + " is " + leader.name() + "'s MAC"
                + (leader.name().equals(announcedBy)
                        ? ", the node its ServiceL2Status names"
                        : "; but its ServiceL2Status names " + announcedBy + " (it moved in between?)"));

        String url = url(ip);
        String body;
        try (var progress = console.progress("client$ curl " + url)) {
            body = Wait.until(
                    "an answer to curl " + url,
                    SOON,
                    Duration.ofMillis(100),
                    () -> client.curl(url, Duration.ofSeconds(1)).map(String::strip));
            progress.done("\"" + body + "\"");
        }
        console.line("  answered by " + body + "'s backend, through its kube-proxy stand-in (DNAT of port 80)");
        return new Reached(leader, body);
    }

    private Optional<String> statusNode(String service) {
        return sandbox.announcingNode(SERVICE_NAMESPACE, service);
    }

    // ---- step 3: failover ----

    /** How the leader fails: as the LAN sees a dead node, or a speaker stopped on purpose. */
    enum Failure {
        LINK_DOWN,
        SIGTERM
    }

    private Handover failLeader(Created service, TestNode leader, Failure failure) throws InterruptedException {
        InetAddress ip = service.ip();
        String family = ip instanceof Inet6Address ? "ipv6" : "ipv4";
        String url = url(ip);
        Handover handover;
        try (ClientLoop loop = ClientLoop.start(sandbox.network, url, logs.resolve("client-loop-" + family + ".log"))) {
            console.line("client: curl " + url + " every " + ClientLoop.PAUSE.toMillis()
                    + " ms (timeouts 0.2 s connect," + " 0.4 s total; at most " + ClientLoop.MAX_REQUESTS
                    + " requests or " + ClientLoop.MAX_TIME.toSeconds() + " s)");
            Wait.until(
                    "the client's loop to be answered by " + leader.name(),
                    SOON,
                    POLL,
                    () -> loop.samples().stream()
                            .filter(s -> s.answeredBy(leader.name()))
                            .findFirst());
            long pid = sandbox.speaker(leader).pid();
            long failedAt = nowMicros();
            if (failure == Failure.LINK_DOWN) {
                sandbox.network.linkDown(leader);
                console.line(
                        "ip netns exec " + leader.namespace() + " ip link set eth0 down: to the LAN, " + leader.name()
                                + " is dead; its Node and Pod stay Ready, the other speakers notice the silence themselves");
            } else {
                sandbox.speaker(leader).terminate();
                console.line("kill -TERM " + pid + ": the speaker on " + leader.name()
                        + " stops answering, tells the others and" + " marks its Pod not ready");
            }
            try (var progress = console.progress("waiting for the client's traffic to move off " + leader.name())) {
                handover = Wait.until("another node to answer the client", SOON, POLL, () -> {
                    List<Sample> samples = loop.samples();
                    progress.detail(describe(samples, failedAt));
                    if (!loop.isAlive()) {
                        throw new StepFailed("the client's loop ended early; its log: "
                                + logs.resolve("client-loop-" + family + ".log"));
                    }
                    return Handover.analyze(samples, failedAt, leader.name());
                });
                progress.done("now answered by " + handover.newNode());
            }
            String newNode = handover.newNode();
            // A few more answers, so that traffic flapping back would be seen, not hidden by stopping early.
            Wait.until(SETTLED_ANSWERS + " more answers", SOON, POLL, () -> {
                long after = loop.samples().stream()
                        .filter(s -> s.atMicros() > failedAt && s.answeredBy(newNode))
                        .count();
                return after >= SETTLED_ANSWERS ? Optional.of(after) : Optional.empty();
            });
            loop.close();
            handover = Handover.analyze(loop.samples(), failedAt, leader.name()).orElseThrow();
        }
        printHandover(leader, handover);
        confirmNewLeader(ip, handover.newNode());
        if (failure == Failure.LINK_DOWN) {
            rejoin(service, leader);
        } else {
            var exit = sandbox.speaker(leader).waitFor(Duration.ofSeconds(10));
            console.line("the stopped speaker "
                    + (exit.isPresent() ? "exited with code " + exit.getAsInt() : "is still running after 10 s"));
            try (var progress =
                    console.progress("restarting the speaker on " + leader.name() + ", as its DaemonSet would")) {
                sandbox.restartSpeaker(leader);
                progress.done("ready, Pod Ready");
            }
        }
        return handover;
    }

    /** The node comes back: its peers hold it back a moment (so that a flapping node cannot pull the address to and fro), then it leads again. */
    private void rejoin(Created service, TestNode leader) throws InterruptedException {
        sandbox.network.linkUp(leader);
        console.line("ip netns exec " + leader.namespace() + " ip link set eth0 up: " + leader.name()
                + " is back on the LAN");
        try (var progress = console.progress("waiting for " + leader.name() + " to be readmitted and lead "
                + Format.address(service.ip()) + " again")) {
            Wait.until(
                    leader.name() + " to serve " + service.name() + " again",
                    SOON,
                    POLL,
                    () -> sandbox.network
                            .client()
                            .curl(url(service.ip()), Duration.ofMillis(300))
                            .map(String::strip)
                            .filter(leader.name()::equals));
            progress.done("its peers held it back for the rejoin hold (2 s), then handed the address back");
        }
    }

    private static String describe(List<Sample> samples, long failedAt) {
        List<Sample> after =
                samples.stream().filter(s -> s.atMicros() > failedAt).toList();
        long failed = after.stream().filter(s -> !s.answered()).count();
        String last = after.isEmpty() ? "-" : after.getLast().answeredBy().orElse("no answer");
        return after.size() + " requests since, " + failed + " failed, last: " + last;
    }

    private void printHandover(TestNode leader, Handover h) {
        console.line(
                "  first answer from " + h.newNode() + " " + Format.duration(h.switchOver()) + " after the failure");
        console.line("  in between: " + h.requests() + (h.requests() == 1 ? " request, " : " requests, ")
                + h.oldNodeAnswers() + " still answered by "
                + leader.name() + " (its kube-proxy forwards until the client's neighbor entry moves), "
                + h.failed() + " failed");
        console.line("  longest time between two answers: " + Format.duration(h.longestSilence()) + " (a request every "
                + Format.duration(h.loopPeriod()) + " when all is well)");
        if (h.backToOldNode() > 0) {
            console.line(
                    console.bad("  " + h.backToOldNode() + " later answers came from " + leader.name() + " again"));
        }
    }

    private void confirmNewLeader(InetAddress ip, String expected) throws InterruptedException {
        var client = sandbox.network.client();
        boolean v6 = ip instanceof Inet6Address;
        String mac = Wait.until(
                "an ARP/NDP answer for " + Format.address(ip),
                SOON,
                Duration.ofMillis(100),
                () -> v6 ? client.ndisc6(ip, Duration.ofSeconds(1)) : client.arping(ip, Duration.ofSeconds(1)));
        String node = sandbox.nodeWithMac(mac).name();
        console.line("client$ " + (v6 ? "ndisc6" : "arping") + " " + Format.address(ip) + ": answered by " + mac + " ("
                + node + ")" + (node.equals(expected) ? "" : console.bad(", not " + expected)));
        client.neighbor(ip)
                .ifPresent(n -> console.line(
                        "client$ ip neigh show " + Format.address(ip) + ": lladdr " + n.mac() + " " + n.state()));
    }

    // ---- after the demo ----

    /** With --keep: how to look around in the running sandbox. */
    @Override
    public List<String> exploreHints() {
        if (bgpWalkthrough != null) {
            return bgpWalkthrough.exploreHints();
        }
        TestNetwork network = sandbox.network;
        String client = network.client().namespace();
        List<String> lines = new ArrayList<>();
        lines.add("The sandbox keeps running. In another shell, as root:");
        lines.add("");
        lines.add("  export KUBECONFIG=" + sandbox.kubeconfig);
        lines.add("  kubectl get svc -A");
        lines.add("  kubectl get servicel2statuses,ipaddresspools,l2advertisements -n lbk8s-system");
        lines.add("  kubectl get events -n default");
        for (FamilyResult r : results) {
            lines.add("  ip netns exec " + client + " curl -g " + url(Sandbox.address(r.address())));
        }
        lines.add("  ip netns exec " + client + " arping -c 1 -I eth0 "
                + results.getFirst().address());
        lines.add("  ip netns exec " + client + " ip neigh");
        lines.add("  ip netns exec " + network.node(1).namespace() + " ip addr");
        lines.add("");
        lines.add("Logs: " + logs + "/*.log");
        lines.add("Press Ctrl-C here (or kill -TERM " + ProcessHandle.current().pid() + ") to remove it all.");
        return lines;
    }

    static String url(InetAddress ip) {
        return ip instanceof Inet6Address
                ? "http://[" + Format.address(ip) + "]/"
                : "http://" + Format.address(ip) + "/";
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}

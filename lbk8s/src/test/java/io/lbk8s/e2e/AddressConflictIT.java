package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.testkit.net.ArpWatch;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Another host on the LAN uses a pool address (a forgotten VM with it configured): lbk8s never answers for it while
 * that host does, says so (a Warning Event on the Service, an AddressConflict object, a metric), and announces it
 * again once the host has left. Everything is seen from the LAN (arping, ndisc6, tcpdump) and the API.
 */
class AddressConflictIT {
    static final Duration SOON = Duration.ofSeconds(15);
    /**
     * Background commands run on a thread of their own: on the common pool (one thread on 2 CPUs) they would hold up
     * the API client's own asynchronous work, and the test would see the Event late.
     */
    static final java.util.concurrent.Executor OWN_THREAD =
            task -> Thread.ofPlatform().daemon().start(task);

    static Sandbox cluster;
    static TestNetwork network;
    static TestClient foreign;
    static AddressConflicts conflicts;

    @BeforeAll
    static void startCluster() throws Exception {
        E2ePrerequisites.check();
        // no periodic gratuitous ARP: a test counts the leader's gratuitous frames to see exactly one defence
        cluster = Sandbox.start(
                Sandbox.REPO.resolve("lbk8s/target/e2e-logs/conflict-" + System.currentTimeMillis()),
                TestNetwork.DEFAULT_NODE_COUNT,
                List.of("--gratuitous-refresh", "0"));
        network = cluster.network;
        String v4 = network.ipv4PoolAddress(0).getHostAddress() + "-"
                + network.ipv4PoolAddress(19).getHostAddress();
        String v6 = network.ipv6PoolAddress(0).getHostAddress() + "-"
                + network.ipv6PoolAddress(19).getHostAddress();
        cluster.createMetallb("IPAddressPool", "main", "{addresses: ['" + v4 + "', '" + v6 + "']}");
        cluster.createMetallb("L2Advertisement", "main", "{ipAddressPools: [main]}");
        foreign = network.foreignHost();
        conflicts = new AddressConflicts(cluster.client);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aHostHoldingAPoolAddressBeforeTheServiceKeepsEveryNodeSilent() {
        InetAddress ip = network.ipv4PoolAddress(5);
        foreignTakes(ip);
        createService("taken", ip);

        AddressConflict conflict = awaitConflict(ip, AddressConflict.Phase.Probe);
        assertThat(conflict.mac()).isEqualTo(foreign.mac());
        assertThat(conflict.service()).contains(new ServiceKey("default", "taken"));
        TestNode reporter = cluster.nodeNamed(conflict.node());
        awaitEvent(
                "taken",
                "Warning",
                "AddressConflict",
                "another host, MAC " + foreign.mac() + ", answers ARP for "
                        + ip.getHostAddress() + " on the network of node " + reporter.name() + ": node "
                        + reporter.name()
                        + " does not announce it while that host uses it");
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .as("only the other host answers")
                .containsExactly(foreign.mac());
        assertThat(cluster.l2Statuses("default", "taken"))
                .as("no ServiceL2Status says a node announces it")
                .isEmpty();
        assertThat(cluster.metrics(reporter))
                .hasValueSatisfying(m -> assertThat(m)
                        .containsPattern("lbk8s_speaker_address_conflicts\\{address=\"" + quoted(ip) + "\",node=\""
                                + reporter.name() + "\"} 1"));

        foreignLeaves(ip);
        await("the conflict cleared")
                .atMost(SOON)
                .until(() -> conflicts.get(IpAddress.of(ip)).isEmpty());
        awaitEvent("taken", "Normal", "AddressConflictCleared", ip.getHostAddress() + " is quiet again");
        TestNode leader = announcingNode("taken");
        await("a node answers again")
                .atMost(SOON)
                .until(
                        () -> network.client().arping(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));
        await("curl reaches it")
                .atMost(SOON)
                .until(
                        () -> network.client().curl(ip, Duration.ofSeconds(1)),
                        body -> body.equals(Optional.of(leader.backendBody())));
        assertThat(cluster.metrics(reporter))
                .hasValueSatisfying(m -> assertThat(m)
                        .doesNotContainPattern("lbk8s_speaker_address_conflicts\\{address=\"" + quoted(ip) + "\""));
    }

    @Test
    void anAddressAnotherHostHoldsIsFoundAheadAndNeverGivenToAService() {
        // a pool of its own, so that which address comes first is known: the other host holds the first
        InetAddress held = network.ipv4PoolAddress(20);
        InetAddress next = network.ipv4PoolAddress(21);
        foreignTakes(held);
        cluster.createMetallb(
                "IPAddressPool",
                "spare",
                "{autoAssign: false, addresses: ['" + held.getHostAddress() + "-" + next.getHostAddress() + "']}");
        cluster.createMetallb("L2Advertisement", "spare", "{ipAddressPools: [spare]}");

        // a speaker probes each pool's next addresses every 10 s: the conflict is known before any Service wants it
        AddressConflict found = await("the next address probed ahead")
                .atMost(SOON.plusSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> conflicts.get(IpAddress.of(held)), Optional::isPresent)
                .orElseThrow();
        assertThat(found.phase()).isEqualTo(AddressConflict.Phase.Probe);
        assertThat(found.service()).isEmpty();
        assertThat(found.mac()).isEqualTo(foreign.mac());

        List<List<String>> shown = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (var watch = cluster.client
                .services()
                .inNamespace("default")
                .withName("ahead")
                .watch(new io.fabric8.kubernetes.client.Watcher<>() {
                    @Override
                    public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Service service) {
                        var ingress = service.getStatus() == null
                                ? null
                                : service.getStatus().getLoadBalancer().getIngress();
                        if (ingress != null && !ingress.isEmpty()) {
                            shown.add(ingress.stream()
                                    .map(io.fabric8.kubernetes.api.model.LoadBalancerIngress::getIp)
                                    .toList());
                        }
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                })) {
            cluster.client
                    .services()
                    .resource(new ServiceBuilder()
                            .withNewMetadata()
                            .withName("ahead")
                            .withNamespace("default")
                            .withAnnotations(Map.of("metallb.io/address-pool", "spare"))
                            .endMetadata()
                            .withNewSpec()
                            .withType("LoadBalancer")
                            .withSelector(Map.of("app", "ahead"))
                            .addNewPort()
                            .withName("http")
                            .withPort(80)
                            .withProtocol("TCP")
                            .endPort()
                            .endSpec()
                            .build())
                    .create();
            assertThat(cluster.awaitIngressIps("default", "ahead", 1)).containsExactly(next.getHostAddress());
            TestNode leader = announcingNode("ahead");
            await("curl reaches it")
                    .atMost(SOON)
                    .until(
                            () -> network.client().curl(next, Duration.ofSeconds(1)),
                            body -> body.equals(Optional.of(leader.backendBody())));
        }
        assertThat(shown)
                .as("every status the Service showed")
                .isNotEmpty()
                .allSatisfy(ips -> assertThat(ips).containsExactly(next.getHostAddress()));
        assertThat(network.client().arpingAll(held, Duration.ofSeconds(2)))
                .as("only the other host answers for the first")
                .containsExactly(foreign.mac());
        foreignLeaves(held);
    }

    @Test
    void aHostClaimingAnAnnouncedIpv4AddressIsReportedWithinASecondDefendedOnceThenLeftAlone() throws Exception {
        InetAddress ip = network.ipv4PoolAddress(6);
        createService("claimed", ip);
        TestNode leader = announcingNode("claimed");
        await("the leader answers")
                .atMost(SOON)
                .until(
                        () -> network.client().arping(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));
        Thread.sleep(1500); // the takeover burst's last gratuitous ARP (at 1 s) is over

        try (ArpWatch watch = ArpWatch.start(network, network.logDirectory().resolve("conflict-arp.log"))) {
            foreignTakes(ip);
            long before = Sandbox.nowMicros();
            var arping = CompletableFuture.supplyAsync(() -> foreign.gratuitousArp(ip), OWN_THREAD);
            awaitEvent(
                    "claimed",
                    "Warning",
                    "AddressConflict",
                    "another host, MAC " + foreign.mac() + ", claimed " + text(ip) + " while node " + leader.name()
                            + " announced it: node " + leader.name() + " defended it once");
            long seen = Sandbox.nowMicros();
            must(arping.join());
            long sent = watch.answers(ip).stream()
                    .filter(a -> a.mac().equals(foreign.mac()))
                    .mapToLong(ArpWatch.Answer::epochMicros)
                    .min()
                    .orElseThrow(() -> new AssertionError("the client never saw the other host's gratuitous ARP"));
            assertThat(sent).isGreaterThanOrEqualTo(before);
            assertWithinASecond(sent, seen, "claimed");
            awaitEvent(
                    "claimed",
                    "Warning",
                    "AddressConflict",
                    "still answers for " + text(ip) + " after node " + leader.name() + " defended it: node "
                            + leader.name() + " stopped announcing it");
            long withdrawn = Sandbox.nowMicros();
            assertThat(awaitConflict(ip, AddressConflict.Phase.Announced).mac()).isEqualTo(foreign.mac());
            List<ArpWatch.Answer> defences = watch.answers(ip).stream()
                    .filter(a ->
                            a.mac().equals(leader.mac()) && a.epochMicros() >= sent && a.epochMicros() <= withdrawn)
                    .toList();
            assertThat(defences)
                    .as("one defence: a gratuitous request and reply from the leader")
                    .hasSize(2);
        }
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .as("the leader stopped answering")
                .containsExactly(foreign.mac());
        await("no ServiceL2Status says a node announces it")
                .atMost(SOON)
                .until(() -> cluster.l2Statuses("default", "claimed").isEmpty());

        foreignLeaves(ip);
        await("the conflict cleared")
                .atMost(SOON)
                .until(() -> conflicts.get(IpAddress.of(ip)).isEmpty());
        awaitEvent("claimed", "Normal", "AddressConflictCleared", ip.getHostAddress() + " is quiet again");
        await("the leader answers again")
                .atMost(SOON)
                .until(
                        () -> network.client().arpingAll(ip, Duration.ofSeconds(1)),
                        macs -> macs.equals(List.of(leader.mac())));
        assertThat(announcingNode("claimed")).isEqualTo(leader);
    }

    @Test
    void aHostClaimingAnAnnouncedIpv6AddressIsReportedWithinASecondThenLeftAlone() throws Exception {
        InetAddress ip = network.ipv6PoolAddress(7);
        createService("claimed6", ip);
        TestNode leader = announcingNode("claimed6");
        await("the leader answers")
                .atMost(SOON)
                .until(
                        () -> network.client().ndisc6(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));

        foreignTakes(ip);
        // then says so, as a host taking an address does (the kernel does not on its own, with nodad)
        var advertisement = CompletableFuture.supplyAsync(
                () -> foreign.run(
                        Duration.ofSeconds(20),
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        classPath(),
                        ForeignAdvertisement.class.getName(),
                        "eth0",
                        text(ip)),
                OWN_THREAD);
        awaitEvent(
                "claimed6",
                "Warning",
                "AddressConflict",
                "another host, MAC " + foreign.mac() + ", claimed " + text(ip) + " while node " + leader.name()
                        + " announced it");
        long seen = Sandbox.nowMicros();
        CommandResult sentBy = advertisement.join();
        must(sentBy);
        long sent = Long.parseLong(sentBy.stdout()
                .lines()
                .filter(l -> l.startsWith("ok "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(sentBy.output()))
                .substring(3)
                .strip());
        assertWithinASecond(sent, seen, "claimed6");
        awaitEvent(
                "claimed6",
                "Warning",
                "AddressConflict",
                "still answers for " + text(ip) + " after node " + leader.name() + " defended it: node " + leader.name()
                        + " stopped announcing it");
        assertThat(awaitConflict(ip, AddressConflict.Phase.Announced).mac()).isEqualTo(foreign.mac());
        network.client().flushNeighbor(ip);
        assertThat(network.client().ndisc6(ip, Duration.ofSeconds(1)))
                .as("only the other host answers")
                .contains(foreign.mac());

        foreignLeaves(ip);
        await("the conflict cleared")
                .atMost(SOON)
                .until(() -> conflicts.get(IpAddress.of(ip)).isEmpty());
        awaitEvent("claimed6", "Normal", "AddressConflictCleared", text(ip) + " is quiet again");
        await("the leader answers again")
                .atMost(SOON)
                .until(
                        () -> network.client().ndisc6(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));
    }

    @Test
    void aHostHoldingAnIpv6PoolAddressBeforeTheServiceKeepsEveryNodeSilent() {
        InetAddress ip = network.ipv6PoolAddress(8);
        foreignTakes(ip);
        createService("taken6", ip);
        AddressConflict conflict = awaitConflict(ip, AddressConflict.Phase.Probe);
        assertThat(conflict.mac()).isEqualTo(foreign.mac());
        awaitEvent(
                "taken6",
                "Warning",
                "AddressConflict",
                "another host, MAC " + foreign.mac() + ", answers neighbor discovery for " + text(ip));
        assertThat(network.client().ndisc6(ip, Duration.ofSeconds(1))).contains(foreign.mac());
        foreignLeaves(ip);
        await("the conflict cleared")
                .atMost(SOON)
                .until(() -> conflicts.get(IpAddress.of(ip)).isEmpty());
        TestNode leader = announcingNode("taken6");
        await("a node answers again")
                .atMost(SOON)
                .until(
                        () -> network.client().ndisc6(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));
    }

    @Test
    void aNodesOwnAddressAndItsSubnetsNetworkAddressAreNeverHandedOutOrAnnounced() {
        // a careless pool: node-1's own address and the subnet's network address; the controller refuses both (its
        // exclusions), and the speakers, which would not announce them either (NodePlanTest), are never asked to
        TestNode node1 = network.node(1);
        InetAddress nodeAddress = node1.ipv4();
        InetAddress subnetAddress = Sandbox.address(
                network.ipv4Subnet().substring(0, network.ipv4Subnet().indexOf('/')));
        cluster.createMetallb(
                "IPAddressPool",
                "careless",
                "{autoAssign: false, addresses: ['" + nodeAddress.getHostAddress() + "/32', '"
                        + subnetAddress.getHostAddress() + "/32']}");
        cluster.createMetallb("L2Advertisement", "careless", "{ipAddressPools: [careless]}");
        requestService("node-address", nodeAddress);
        requestService("subnet-address", subnetAddress);

        awaitEvent(
                "node-address",
                "Warning",
                "AllocationFailed",
                "requested IP " + nodeAddress.getHostAddress() + " is not given to any Service: it is taken (");
        awaitEvent(
                "subnet-address",
                "Warning",
                "AllocationFailed",
                "requested IP " + subnetAddress.getHostAddress()
                        + " is not given to any Service: it is taken (network address of " + network.ipv4Subnet()
                        + ")");
        assertThat(cluster.client
                        .services()
                        .inNamespace("default")
                        .withName("node-address")
                        .get()
                        .getStatus()
                        .getLoadBalancer()
                        .getIngress())
                .isNullOrEmpty();
        assertThat(network.client().arpingAll(nodeAddress, Duration.ofSeconds(2)))
                .as("only node-1's own kernel answers")
                .containsExactly(node1.mac());
        assertThat(network.client().arpingAll(subnetAddress, Duration.ofSeconds(2)))
                .as("nobody answers")
                .isEmpty();
        assertThat(conflicts.get(IpAddress.of(nodeAddress)))
                .as("not a conflict")
                .isEmpty();
        assertThat(conflicts.get(IpAddress.of(subnetAddress)))
                .as("not a conflict")
                .isEmpty();
    }

    @Test
    void speakersPublishTheirNodesNetworkOnTheirPods() {
        TestNode node = network.node(1);
        await("the node-network annotation")
                .atMost(SOON)
                .until(() -> Optional.ofNullable(cluster.client
                                .pods()
                                .inNamespace(Sandbox.NAMESPACE)
                                .withName(Sandbox.podName(node))
                                .get()
                                .getMetadata()
                                .getAnnotations())
                        .map(a -> a.get("lbk8s.io/node-network"))
                        .isPresent());
        String annotation = cluster.client
                .pods()
                .inNamespace(Sandbox.NAMESPACE)
                .withName(Sandbox.podName(node))
                .get()
                .getMetadata()
                .getAnnotations()
                .get("lbk8s.io/node-network");
        NodeNetwork published =
                NodeNetwork.parse(annotation).orElseThrow(() -> new AssertionError("unreadable: " + annotation));
        assertThat(published.links()).singleElement().satisfies(link -> {
            assertThat(link.name()).isEqualTo("eth0");
            assertThat(link.mac()).isEqualTo(node.mac());
            assertThat(link.prefixes())
                    .extracting(Object::toString)
                    .contains(node.ipv4().getHostAddress() + "/24", IpAddress.of(node.ipv6()) + "/64");
        });
        assertThat(published.gateways())
                .as("the test network has no default route")
                .isEmpty();
    }

    // ---- helpers ----

    static void foreignTakes(InetAddress ip) {
        must(
                ip instanceof Inet6Address
                        ? foreign.run(
                                Duration.ofSeconds(5),
                                "ip",
                                "-6",
                                "addr",
                                "add",
                                ip.getHostAddress() + "/64",
                                "dev",
                                "eth0",
                                "nodad")
                        : foreign.run(
                                Duration.ofSeconds(5),
                                "ip",
                                "addr",
                                "add",
                                ip.getHostAddress() + "/24",
                                "dev",
                                "eth0"));
    }

    static void foreignLeaves(InetAddress ip) {
        must(foreign.run(
                Duration.ofSeconds(5),
                "ip",
                "addr",
                "del",
                ip.getHostAddress() + (ip instanceof Inet6Address ? "/64" : "/24"),
                "dev",
                "eth0"));
    }

    static void must(CommandResult result) {
        assertThat(result.ok()).as(result.output()).isTrue();
    }

    static void createService(String name, InetAddress ip) {
        requestService(name, ip);
        assertThat(cluster.awaitIngressIps("default", name, 1))
                .containsExactly(IpAddress.of(ip).toString());
    }

    static void requestService(String name, InetAddress ip) {
        var service = new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withAnnotations(Map.of("metallb.io/loadBalancerIPs", ip.getHostAddress()))
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
        if (ip instanceof Inet6Address) {
            service.editSpec()
                    .withIpFamilies("IPv6")
                    .withIpFamilyPolicy("SingleStack")
                    .endSpec();
        }
        cluster.client.services().resource(service.build()).create();
    }

    static TestNode announcingNode(String service) {
        return cluster.nodeNamed(await(service + " has one ServiceL2Status")
                .atMost(SOON)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> cluster.announcingNode("default", service), Optional::isPresent)
                .orElseThrow());
    }

    static AddressConflict awaitConflict(InetAddress ip, AddressConflict.Phase phase) {
        return await("an AddressConflict for " + ip.getHostAddress())
                .atMost(SOON)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> conflicts.get(IpAddress.of(ip)),
                        c -> c.isPresent() && c.get().phase() == phase)
                .orElseThrow();
    }

    static Optional<Event> event(String service, String type, String reason, String messagePart) {
        return cluster.events("default", service).stream()
                .filter(e -> type.equals(e.getType())
                        && reason.equals(e.getReason())
                        && e.getMessage() != null
                        && e.getMessage().contains(messagePart))
                .findFirst();
    }

    static void awaitEvent(String service, String type, String reason, String messagePart) {
        await(type + " " + reason + " on " + service + ": " + messagePart)
                .atMost(SOON)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> event(service, type, reason, messagePart).isPresent());
    }

    /** The Event was seen (polled every 50 ms) within a second of the other host's frame. */
    static void assertWithinASecond(long sentMicros, long seenMicros, String service) {
        long millis = (seenMicros - sentMicros) / 1000;
        System.out.printf("conflict event on %s seen %d ms after the other host's first frame%n", service, millis);
        assertThat(millis)
                .as("ms from the other host's first frame to the Event")
                .isLessThanOrEqualTo(1000);
    }

    /** Under surefire java.class.path may be only the booter jar; the real one is in surefire.test.class.path. */
    static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** As lbk8s writes an address (IPv6 compressed). */
    static String text(InetAddress ip) {
        return IpAddress.of(ip).toString();
    }

    static String quoted(InetAddress ip) {
        return IpAddress.of(ip).toString().replace(".", "\\.");
    }
}

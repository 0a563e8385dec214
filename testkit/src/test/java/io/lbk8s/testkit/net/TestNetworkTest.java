package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a user of one shared 3-node network sees from its client and nodes. */
class TestNetworkTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static TestNetwork network;
    private static TestClient client;

    @BeforeAll
    static void createNetwork() throws IOException {
        if (!NetworkTests.networkCanBeBuilt()) {
            return; // each test then reports why it is skipped (or fails, on CI)
        }
        long start = System.nanoTime();
        network = TestNetwork.create(3);
        System.out.printf("created %s in %d ms%n", network, (System.nanoTime() - start) / 1_000_000);
        client = network.client();
    }

    @BeforeEach
    void prerequisites() {
        NetworkTests.assumeNetworkCanBeBuilt();
    }

    @AfterAll
    static void closeNetwork() {
        if (network != null) {
            long start = System.nanoTime();
            network.close();
            System.out.printf("closed %s in %d ms%n", network, (System.nanoTime() - start) / 1_000_000);
        }
    }

    @Test
    void topologyUsesTheDocumentedNamesAndAddresses() {
        String id = network.id();
        String x = network.ipv4Subnet().split("\\.")[2];
        assertThat(network.nodes()).hasSize(3);
        assertThat(network.node(2))
                .isEqualTo(new TestNode(
                        "node-2",
                        "lbk8s-" + id + "-node-2",
                        "eth0",
                        "02:1b:8a:00:00:02",
                        Addressing.literal("198.18." + x + ".12"),
                        Addressing.literal("fd00:1b8:" + x + "::12")));
        assertThat(network.ipv4Pool()).isEqualTo("198.18." + x + ".200-198.18." + x + ".250");
        assertThat(network.ipv6Pool()).isEqualTo("fd00:1b8:" + x + "::200-fd00:1b8:" + x + "::250");
        assertThat(network.ipv6Subnet()).isEqualTo("fd00:1b8:" + x + "::/64");
        assertThat(Addressing.text(network.hostAddress())).isEqualTo("198.18." + x + ".254");
        assertThat(client.mac()).isEqualTo("02:1b:8a:00:00:c1");
    }

    @Test
    void arpingOfEachNodeAnswersWithItsMac() {
        for (TestNode node : network.nodes()) {
            assertThat(client.arping(node.ipv4(), TIMEOUT))
                    .as("arping %s", node)
                    .contains(node.mac());
        }
    }

    @Test
    void ndisc6OfEachNodeAnswersWithItsMac() {
        for (TestNode node : network.nodes()) {
            assertThat(client.ndisc6(node.ipv6(), TIMEOUT))
                    .as("ndisc6 %s", node)
                    .contains(node.mac());
        }
    }

    @Test
    void arpingOfAnUnusedPoolAddressGetsNoAnswer() {
        assertThat(client.arping(network.ipv4PoolAddress(50), Duration.ofSeconds(1)))
                .isEmpty();
    }

    @Test
    void eachBackendAnswersWithItsNodeName() {
        for (TestNode node : network.nodes()) {
            assertThat(client.curl(node.ipv4(), 8080, TIMEOUT))
                    .as("%s over IPv4", node)
                    .contains(node.name() + "\n");
            assertThat(client.curl(node.ipv6(), 8080, TIMEOUT))
                    .as("%s over IPv6", node)
                    .contains(node.name() + "\n");
        }
    }

    @Test
    void kubeProxyStandInForwardsPoolAddressesToTheNodeThatReceivesThem() {
        TestNode node2 = network.node(2);
        for (InetAddress vip : List.of(network.ipv4PoolAddress(0), network.ipv6PoolAddress(0))) {
            // What the speaker will do with ARP/NDP, done by hand: the client sends the VIP's frames to node-2.
            CommandResult set = client.run(
                    TIMEOUT,
                    "ip",
                    "neigh",
                    "replace",
                    Addressing.text(vip),
                    "lladdr",
                    node2.mac(),
                    "dev",
                    "eth0",
                    "nud",
                    "permanent");
            assertThat(set.ok()).as(set.output()).isTrue();
            try {
                assertThat(client.neighbor(vip)).contains(new Neighbor(node2.mac(), "PERMANENT"));
                assertThat(client.curl(vip, TIMEOUT)).as("curl %s", vip).contains("node-2\n");
            } finally {
                client.flushNeighbor(vip);
            }
            assertThat(client.neighbor(vip)).isEmpty();
        }
    }

    @Test
    void setNeighborCreatesAStaleEntry() {
        InetAddress vip = network.ipv4PoolAddress(1);
        try {
            client.setNeighbor(vip, network.node(3).mac());
            assertThat(client.neighbor(vip))
                    .contains(new Neighbor(network.node(3).mac(), "STALE"));
        } finally {
            client.flushNeighbor(vip);
        }
    }

    @Test
    void aProcessInANodeSeesOnlyThatNamespacesInterfaces() throws IOException {
        TestNode node1 = network.node(1);
        Path log = network.logDirectory().resolve("links-node-1.log");
        NamespacedProcess links = network.start(
                node1.namespace(),
                List.of("sh", "-c", "ip -o link show; cat /sys/class/net/eth0/address; echo done"),
                log);
        links.awaitLogLine("^done$", TIMEOUT);
        assertThat(links.waitFor(TIMEOUT)).hasValue(0);
        List<String> names = links.log()
                .lines()
                .filter(l -> l.matches("\\d+: .*"))
                .map(l -> l.split(":\\s+")[1].split("@")[0])
                .toList();
        assertThat(names).containsExactly("lo", "eth0");
        // ip netns exec remounts /sys, so sysfs shows this namespace's eth0, not the host's.
        assertThat(links.log()).contains("\n" + node1.mac() + "\n");
    }

    @Test
    void nodesReachAServerOnTheHostAtHostAddress() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(network.hostAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = "from-host\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            for (TestNode node : network.nodes()) {
                CommandResult result = network.run(
                        node.namespace(),
                        TIMEOUT.plusSeconds(1),
                        "curl",
                        "-sS",
                        "-f",
                        "--noproxy",
                        "*",
                        "--max-time",
                        "2",
                        TestClient.url(
                                network.hostAddress(), server.getAddress().getPort()));
                assertThat(result.stdout()).as("%s: %s", node, result.output()).isEqualTo("from-host\n");
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void bridgeSnoopsMldWithAQuerier() {
        CommandResult details = network.run(network.bridgeNamespace(), TIMEOUT, "ip", "-d", "link", "show", "br0");
        assertThat(details.stdout()).contains("mcast_snooping 1").contains("mcast_querier 1");
        // The nodes' kernels reported their solicited-node groups; the bridge learnt them per port.
        for (TestNode node : network.nodes()) {
            assertThat(network.multicastGroups())
                    .anyMatch(entry -> entry.startsWith(
                            "port " + node.name() + " grp ff02::1:ff00:" + (10 + node.number()) + " "));
        }
    }

    /**
     * The speaker's situation: a solicitation for a VIP reaches a node only once the node joined the
     * VIP's solicited-node group, and never reaches a node that did not join.
     */
    @Test
    void solicitationsReachOnlyNodesThatJoinedTheSolicitedNodeGroup() {
        NetworkTests.assumeTool("tcpdump", "tcpdump");
        InetAddress vip = network.ipv6PoolAddress(0x50); // ::250, used by no other test
        String group = "ff02::1:ff00:250";
        String whoHas = "who has " + Addressing.text(vip);
        NamespacedProcess seenByNode1 = capture(network.node(1), "ns-node-1.log");
        NamespacedProcess seenByNode2 = capture(network.node(2), "ns-node-2.log");

        assertThat(client.ndisc6(vip, Duration.ofMillis(600))).isEmpty();
        assertThat(seenByNode1.log()).doesNotContain(whoHas);
        assertThat(seenByNode2.log()).doesNotContain(whoHas);

        NamespacedProcess member = network.start(
                network.node(1).namespace(),
                List.of("socat", "-u", "UDP6-RECV:5000,ipv6-join-group=[" + group + "]:eth0", "STDOUT"),
                network.logDirectory().resolve("member-node-1.log"));
        try {
            awaitGroup("port node-1 grp " + group + " ");
            assertThat(client.ndisc6(vip, Duration.ofMillis(600))).isEmpty(); // joined, but nobody answers
            awaitLog(seenByNode1, whoHas);
            assertThat(seenByNode2.log()).doesNotContain(whoHas);
        } finally {
            member.stop(TIMEOUT);
            seenByNode1.stop(TIMEOUT);
            seenByNode2.stop(TIMEOUT);
        }
    }

    @Test
    void aNodeThatJoinsAGroupReceivesTheClientsDatagrams() {
        String group = "ff05::1:5";
        NamespacedProcess member = network.start(
                network.node(3).namespace(),
                List.of("socat", "-u", "UDP6-RECV:5001,ipv6-join-group=[" + group + "]:eth0", "STDOUT"),
                network.logDirectory().resolve("member-node-3.log"));
        try {
            awaitGroup("port node-3 grp " + group + " ");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!member.log().contains("hello-group") && System.nanoTime() < deadline) {
                client.run(TIMEOUT, "sh", "-c", "echo hello-group | socat -u - 'UDP6-SENDTO:[" + group + "]:5001'");
                Leftovers.sleep(Duration.ofMillis(100));
            }
            assertThat(member.log()).contains("hello-group");
        } finally {
            member.stop(TIMEOUT);
        }
    }

    @Test
    void aLinkFlapKeepsTheNodesAddresses() {
        TestNode node3 = network.node(3);
        network.linkDown(node3);
        try {
            assertThat(client.arping(node3.ipv4(), Duration.ofSeconds(1))).isEmpty();
        } finally {
            network.linkUp(node3);
        }
        CommandResult addresses = network.run(node3.namespace(), TIMEOUT, "ip", "-6", "address", "show", "dev", "eth0");
        assertThat(addresses.stdout()).contains(Addressing.text(node3.ipv6()) + "/64");
        assertThat(client.arping(node3.ipv4(), TIMEOUT)).contains(node3.mac());
        assertThat(client.ndisc6(node3.ipv6(), TIMEOUT)).contains(node3.mac());
    }

    @Test
    void blockServiceMakesTheBackendRefuseConnections() {
        TestNode node2 = network.node(2);
        network.blockService(node2);
        try {
            assertThat(client.curl(node2.ipv4(), 8080, TIMEOUT)).isEmpty();
        } finally {
            network.unblockService(node2);
        }
        assertThat(client.curl(node2.ipv4(), 8080, TIMEOUT)).contains("node-2\n");
    }

    @Test
    void startRefusesNamespacesOfOtherNetworks() {
        assertThatThrownBy(() -> network.start("lbk8s-0000-node-1", List.of("true"), Path.of("/dev/null")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a namespace of test network");
    }

    private NamespacedProcess capture(TestNode node, String logName) {
        NamespacedProcess tcpdump = network.start(
                node.namespace(),
                List.of("tcpdump", "-p", "-n", "-l", "-i", "eth0", "icmp6 and ip6[40] == 135"),
                network.logDirectory().resolve(logName));
        tcpdump.awaitLogLine("listening on", TIMEOUT);
        return tcpdump;
    }

    private static void awaitGroup(String entryPrefix) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (network.multicastGroups().stream().noneMatch(e -> e.startsWith(entryPrefix))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no mdb entry '" + entryPrefix + "' in " + network.multicastGroups());
            }
            Leftovers.sleep(Duration.ofMillis(50));
        }
    }

    private static void awaitLog(NamespacedProcess process, String text) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!process.log().contains(text) && System.nanoTime() < deadline) {
            Leftovers.sleep(Duration.ofMillis(50));
        }
        assertThat(process.log()).contains(text);
    }
}

package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.peers.PeerCodec;
import io.lbk8s.peers.PeerId;
import io.lbk8s.peers.PeerKeys;
import io.lbk8s.peers.PeerMessage;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The speakers' messages as the LAN carries them. A host that is not a speaker (this test's JVM, on the host leg of
 * the namespace network) can neither declare a live node dead nor keep a dead one alive: forged messages (no key),
 * replays of a speaker's real messages and malformed ones are dropped and counted, and the speakers behave as if
 * they had never been sent. Keys rotate as the docs say without a node being declared dead. A speaker that hears
 * none of its peers (its port blocked) says so where a user looks.
 */
class PeerMessagesIT {
    static final Duration SOON = Duration.ofSeconds(20);

    @RegisterExtension
    static final WebSandbox web = new WebSandbox("peer-messages");

    @Test
    void forgedMessagesCannotDeclareALiveLeaderDeadOrMakeItStepBack() throws Exception {
        TestNode leader = leader();
        List<TestNode> others = others(leader);
        PeerKeys wrong = ((PeerKeys.Parsed.Valid) PeerKeys.parse(PeerKeys.generate(new SecureRandom()))).keys();
        PeerCodec codec = new PeerCodec();
        List<byte[]> forged = new ArrayList<>();
        for (TestNode other : others) {
            // "the leader is leaving", and "I do not hear the leader", each in the name of a real speaker
            forged.add(codec.encode(
                    new PeerMessage(
                            PeerMessage.Kind.LEAVING,
                            leader.name(),
                            1,
                            Long.MAX_VALUE,
                            System.currentTimeMillis(),
                            false,
                            false,
                            List.of()),
                    wrong));
            forged.add(codec.encode(
                    new PeerMessage(
                            PeerMessage.Kind.HEARTBEAT,
                            other.name(),
                            1,
                            Long.MAX_VALUE,
                            System.currentTimeMillis(),
                            true,
                            false,
                            List.of(new PeerMessage.Report(PeerId.of(leader.name()), PeerMessage.Opinion.SILENT))),
                    wrong));
        }
        byte[] malformed = "LBK8 not a message at all, just text".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Map<TestNode, Double> forgedBefore = counts(web.cluster().network.nodes(), "forged");
        Map<TestNode, Double> malformedBefore = counts(web.cluster().network.nodes(), "malformed");
        try (DatagramSocket socket = new DatagramSocket()) {
            for (int round = 0; round < 40; round++) { // 2 s
                for (TestNode to : web.cluster().network.nodes()) {
                    for (byte[] datagram : forged) {
                        send(socket, datagram, to);
                    }
                    send(socket, malformed, to);
                }
                Thread.sleep(50);
            }
        }
        assertThat(web.client().curl(web.ip(), Duration.ofSeconds(1)))
                .as("the leader still serves")
                .contains(leader.backendBody());
        assertThat(web.client().arpingAll(web.ip(), Duration.ofSeconds(2))).containsExactly(leader.mac());
        for (TestNode node : web.cluster().network.nodes()) {
            assertThat(count(node, "forged"))
                    .as("forged messages dropped and counted on " + node.name())
                    .isGreaterThanOrEqualTo(forgedBefore.get(node) + 40 * forged.size());
            assertThat(count(node, "malformed")).isGreaterThanOrEqualTo(malformedBefore.get(node) + 40);
            assertThat(web.cluster().metrics(node).orElseThrow()).contains("lbk8s_peers_ready 1.0");
        }
        assertThat(web.cluster().speaker(others.getFirst()).log())
                .doesNotContain("peer " + leader.name() + " left")
                .doesNotContain("peer " + leader.name() + " declared dead");
    }

    @Test
    void replayedMessagesOfAFrozenLeaderDoNotKeepItAlive() throws Exception {
        TestNode leader = leader();
        List<byte[]> recorded = recordHeartbeats(leader, 10);
        assertThat(recorded).hasSize(10);
        Map<TestNode, Double> replayedBefore = counts(others(leader), "replayed");
        web.cluster().network.freeze(leader);
        try (DatagramSocket socket = new DatagramSocket()) {
            Thread replayer = Thread.ofVirtual().start(() -> {
                for (int round = 0; round < 60 && !Thread.currentThread().isInterrupted(); round++) { // 3 s
                    for (TestNode to : others(leader)) {
                        recorded.forEach(datagram -> send(socket, datagram, to));
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            TestNode next = await("another node serves despite the replays")
                    .atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(20))
                    .until(
                            () -> web.client()
                                    .curl(web.ip(), Duration.ofMillis(300))
                                    .flatMap(web.cluster()::nodeWithBackend),
                            n -> n.isPresent() && !n.get().equals(leader))
                    .orElseThrow();
            assertThat(web.client().arpingAll(web.ip(), Duration.ofSeconds(2)))
                    .as("one MAC answers: the frozen leader is silent")
                    .containsExactly(next.mac());
            replayer.join(Duration.ofSeconds(5));
        } finally {
            web.cluster().network.thaw(leader);
        }
        for (TestNode other : others(leader)) {
            assertThat(count(other, "replayed"))
                    .as("replays dropped and counted on " + other.name())
                    .isGreaterThan(replayedBefore.get(other));
        }
        await("the thawed leader is heard again")
                .atMost(SOON)
                .until(() -> web.cluster()
                        .metrics(others(leader).getFirst())
                        .map(m -> m.contains("peer=\"" + leader.name() + "\",state=\"alive\""))
                        .orElse(false));
    }

    @Test
    void keysRotateInThreeStepsWithoutAnyNodeDeclaredDead() throws Exception {
        leader();
        String old = keys().strip();
        String fresh = PeerKeys.generate(new SecureRandom());
        long[] logSizes = web.cluster().network.nodes().stream()
                .mapToLong(n -> web.cluster().speaker(n).log().length())
                .toArray();
        Map<TestNode, Double> forgedBefore = counts(web.cluster().network.nodes(), "forged");
        for (String step :
                List.of(old + "\n" + fresh, fresh + "\n" + old, fresh)) { // add, sign with the new one, drop the old
            setKeys(step + "\n");
            Thread.sleep(2000);
        }
        for (int i = 0; i < web.cluster().network.nodes().size(); i++) {
            TestNode node = web.cluster().network.nodes().get(i);
            String since = web.cluster().speaker(node).log().substring((int) logSizes[i]);
            assertThat(since)
                    .as(node.name() + " during the rotation")
                    .doesNotContain("declared dead")
                    .contains(": 2 key(s)")
                    .contains(": 1 key(s)")
                    .doesNotContain("announces nothing");
            assertThat(count(node, "forged")).isEqualTo(forgedBefore.get(node));
        }
        // the old key is retired: what it signs is forged now
        PeerKeys retired = ((PeerKeys.Parsed.Valid) PeerKeys.parse(old)).keys();
        TestNode to = web.cluster().network.nodes().getFirst();
        double before = count(to, "forged");
        try (DatagramSocket socket = new DatagramSocket()) {
            send(
                    socket,
                    new PeerCodec()
                            .encode(
                                    new PeerMessage(
                                            PeerMessage.Kind.LEAVING,
                                            web.cluster().network.nodes().get(1).name(),
                                            1,
                                            1,
                                            System.currentTimeMillis(),
                                            false,
                                            false,
                                            List.of()),
                                    retired),
                    to);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> count(to, "forged") > before);
    }

    @Test
    void aSpeakerThatHearsNoPeerSaysSoAndTheOthersStillAgreeWithIt() {
        TestNode leader = leader();
        TestNode deaf = others(leader).getLast();
        for (TestNode other : others(deaf)) {
            web.cluster()
                    .network
                    .blockUdpFrom(deaf, other, PeerSettings.DEFAULT_PORT); // its firewall drops what its peers send
        }
        try {
            web.cluster().restartSpeaker(deaf);
            await("the deaf speaker reports every peer not heard")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> web.cluster()
                            .metrics(deaf)
                            .map(m -> others(deaf).stream()
                                    .allMatch(o -> m.contains("lbk8s_peers_peer_state{peer=\"" + o.name()
                                            + "\",state=\"not-heard\"} 1.0")))
                            .orElse(false));
            await("a PeerNotHeard event on a peer's Node")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> web.cluster().client.v1().events().inAnyNamespace().list().getItems().stream()
                            .anyMatch(e -> "PeerNotHeard".equals(e.getReason())
                                    && e.getInvolvedObject() != null
                                    && "Node".equals(e.getInvolvedObject().getKind())
                                    && e.getMessage()
                                            .contains("the speaker on " + deaf.name()
                                                    + " has never heard this node's speaker on UDP port "
                                                    + PeerSettings.DEFAULT_PORT)));
            String status = io.lbk8s.install.StatusText.report(
                    io.lbk8s.install.StatusReport.of(new io.lbk8s.install.StatusCollector(web.cluster().client)
                            .read(Sandbox.NAMESPACE, Optional.empty(), Optional.empty())));
            assertThat(status.lines()
                            .filter(l -> l.startsWith(deaf.name() + " "))
                            .findFirst())
                    .hasValueSatisfying(line ->
                            assertThat(line).contains(others(deaf).getFirst().name() + " not-heard"));
            // the others hear it, and it judges them by the API: all agree on who serves, and it is served
            TestNode serving = await("one node serves")
                    .atMost(SOON)
                    .until(
                            () -> web.client()
                                    .curl(web.ip(), Duration.ofMillis(500))
                                    .flatMap(web.cluster()::nodeWithBackend),
                            Optional::isPresent)
                    .orElseThrow();
            assertThat(web.client().arpingAll(web.ip(), Duration.ofSeconds(2))).containsExactly(serving.mac());
        } finally {
            web.cluster().network.openFirewall(deaf);
        }
    }

    private static String keys() {
        var secret = web.cluster()
                .client
                .secrets()
                .inNamespace(Sandbox.NAMESPACE)
                .withName(PeerSettings.DEFAULT_SECRET)
                .get();
        return new String(
                java.util.Base64.getDecoder().decode(secret.getData().get("keys")),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void setKeys(String text) {
        web.cluster()
                .client
                .secrets()
                .inNamespace(Sandbox.NAMESPACE)
                .withName(PeerSettings.DEFAULT_SECRET)
                .edit(s -> {
                    s.getData()
                            .put(
                                    "keys",
                                    java.util.Base64.getEncoder()
                                            .encodeToString(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                    return s;
                });
    }

    /** Captures the leader's next {@code count} heartbeats on its bridge port, as a host on the LAN could. */
    private static List<byte[]> recordHeartbeats(TestNode leader, int count) throws IOException {
        Path pcap = web.cluster().logs.resolve("heartbeats-" + System.nanoTime() + ".pcap");
        NamespacedProcess tcpdump = web.cluster()
                .network
                .start(
                        web.cluster().network.bridgeNamespace(),
                        List.of(
                                "tcpdump",
                                "-i",
                                leader.name(),
                                "-U",
                                "-w",
                                pcap.toString(),
                                "-c",
                                String.valueOf(count),
                                "udp and src host " + leader.ipv4().getHostAddress() + " and dst port "
                                        + PeerSettings.DEFAULT_PORT),
                        web.cluster().logs.resolve("tcpdump-heartbeats.log"));
        assertThat(tcpdump.waitFor(Duration.ofSeconds(10)))
                .as("tcpdump captured " + count + " heartbeats")
                .hasValue(0);
        return udpPayloads(Files.readAllBytes(pcap));
    }

    /** The UDP payloads of a little-endian pcap of Ethernet/IPv4 frames. */
    static List<byte[]> udpPayloads(byte[] pcap) {
        ByteBuffer in = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(in.getInt(0)).as("pcap magic").isEqualTo(0xa1b2c3d4);
        List<byte[]> payloads = new ArrayList<>();
        int at = 24;
        while (at + 16 <= pcap.length) {
            int length = in.getInt(at + 8);
            int frame = at + 16;
            int ipHeader = (pcap[frame + 14] & 0x0f) * 4;
            int udp = frame + 14 + ipHeader;
            int udpLength = ((pcap[udp + 4] & 0xff) << 8) | (pcap[udp + 5] & 0xff);
            payloads.add(java.util.Arrays.copyOfRange(pcap, udp + 8, udp + udpLength));
            at = frame + length;
        }
        return payloads;
    }

    private static void send(DatagramSocket socket, byte[] datagram, TestNode to) {
        try {
            socket.send(new DatagramPacket(
                    datagram, datagram.length, new InetSocketAddress(to.ipv4(), PeerSettings.DEFAULT_PORT)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static final Pattern DROPPED =
            Pattern.compile("lbk8s_peers_dropped_total\\{reason=\"([a-z-]+)\"\\} ([0-9.E]+)");

    private static double count(TestNode node, String reason) {
        String metrics = web.cluster().metrics(node).orElseThrow();
        for (Matcher m = DROPPED.matcher(metrics); m.find(); ) {
            if (m.group(1).equals(reason)) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no lbk8s_peers_dropped_total{reason=\"" + reason + "\"} on " + node.name());
    }

    private static Map<TestNode, Double> counts(List<TestNode> nodes, String reason) {
        Map<TestNode, Double> counts = new java.util.HashMap<>();
        nodes.forEach(n -> counts.put(n, count(n, reason)));
        return counts;
    }

    private static TestNode leader() {
        web.cluster().awaitPeersAgree(Duration.ofSeconds(60));
        return web.cluster().awaitServingNode("web", web.ip(), SOON);
    }

    private static List<TestNode> others(TestNode leader) {
        return web.cluster().network.nodes().stream()
                .filter(n -> !n.equals(leader))
                .toList();
    }
}

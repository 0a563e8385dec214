package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Captures, on the router's LAN leg, each router's OPEN, KEEPALIVE, UPDATE (node-1's route with its community,
 * re-advertised to node-2, which is in another AS) and NOTIFICATION (Bad Peer AS, to node-3, which speaks another AS
 * than configured), and the speakers' UPDATE. The messages are written as hex to target/bgp-captures/, from where the ones in
 * src/test/resources/bgp-captures/ were copied for the codec's tests.
 */
class BgpCaptureTest {

    private static final long ROUTER_AS = 64500;
    private static final long NODE_AS = 64512;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Map<Integer, String> TYPES = Map.of(
            BgpMessages.OPEN, "open",
            BgpMessages.UPDATE, "update",
            BgpMessages.NOTIFICATION, "notification",
            BgpMessages.KEEPALIVE, "keepalive");

    private static TestNetwork network;
    private static UpstreamRouter router;
    private final List<BgpRouter> started = new ArrayList<>();

    @BeforeAll
    static void create() throws IOException {
        if (NetworkTests.networkCanBeBuilt()) {
            network = TestNetwork.create(3, Path.of("target", "router-logs", "BgpCaptureTest"));
            router = network.router();
        }
    }

    @AfterAll
    static void close() {
        if (network != null) {
            network.close();
        }
    }

    @AfterEach
    void stop() {
        started.forEach(BgpRouter::close);
        started.clear();
    }

    @ParameterizedTest
    @EnumSource(RouterKind.class)
    void eachRouterSendsOpenKeepaliveUpdateAndNotification(RouterKind kind) throws IOException {
        NetworkTests.assumeNetworkCanBeBuilt();
        NetworkTests.assumeTool("tcpdump", "tcpdump");
        RouterKind speakerKind = kind == RouterKind.GOBGP ? RouterKind.BIRD : RouterKind.GOBGP;
        NetworkTests.assumeRouter(kind);
        NetworkTests.assumeRouter(speakerKind);
        Path directory = Files.createDirectories(Path.of("target", "bgp-captures"));
        Path pcap = directory.resolve(kind.name().toLowerCase() + ".pcap").toAbsolutePath();
        NamespacedProcess tcpdump = router.capture(pcap);
        TestNode good = network.node(1);
        TestNode otherAs = network.node(2);
        TestNode misconfigured = network.node(3);
        BgpRouter upstream = router.start(
                kind,
                RouterConfig.of(
                                ROUTER_AS,
                                router.ipv4(),
                                List.of(
                                        RouterPeer.at(good.ipv4(), NODE_AS),
                                        RouterPeer.at(otherAs.ipv4(), NODE_AS + 1),
                                        RouterPeer.at(misconfigured.ipv4(), NODE_AS + 2)))
                        .withGracefulRestart(true));
        started.add(upstream);
        for (TestNode node : network.nodes()) {
            long asn = node.equals(otherAs) ? NODE_AS + 1 : NODE_AS;
            RouterConfig speaker =
                    new RouterConfig(asn, node.ipv4(), List.of(RouterPeer.at(router.ipv4(), ROUTER_AS)), true, false);
            started.add(network.startSpeaker(node, speakerKind, speaker));
        }
        upstream.awaitEstablished(good.ipv4(), TIMEOUT);
        upstream.awaitEstablished(otherAs.ipv4(), TIMEOUT);
        String vip = Addressing.text(network.ipv4PoolAddress(20)) + "/32";
        switch (started.get(1)) {
            case GobgpRouter gobgp -> gobgp.announce(vip, List.of("64500:100"), OptionalLong.empty());
            case BirdRouter bird -> bird.announce(vip, List.of("64500:100"), OptionalLong.empty());
            default -> throw new IllegalStateException("no speaker");
        }
        upstream.awaitRoutes(vip, p -> p.size() == 1, "one path", TIMEOUT);
        Poll.until(
                "a last error on the session with " + misconfigured.name(),
                () -> upstream.session(misconfigured.ipv4()),
                s -> s.map(x -> !x.lastError().isEmpty()).orElse(false),
                TIMEOUT);
        // -U and immediate mode: the file grows as packets pass, so it can be read before tcpdump stops
        List<BgpMessages> fromRouter = Poll.until(
                "the router's OPEN, KEEPALIVE, UPDATE with a route (to node-2) and NOTIFICATION in " + pcap,
                () -> fromRouter(pcap),
                m -> m.stream().map(BgpMessages::type).toList().containsAll(TYPES.keySet())
                        && m.stream().anyMatch(BgpCaptureTest::announcesARoute),
                TIMEOUT);
        tcpdump.stop(Duration.ofSeconds(2));
        List<BgpMessages> messages = BgpMessages.read(pcap);

        assertThat(fromRouter)
                .extracting(BgpMessages::type)
                .contains(BgpMessages.OPEN, BgpMessages.KEEPALIVE, BgpMessages.UPDATE, BgpMessages.NOTIFICATION);
        write(directory, kind.name().toLowerCase(), fromRouter);
        write(
                directory,
                speakerKind.name().toLowerCase() + "-speaker",
                messages.stream()
                        .filter(m -> m.sender().equals(good.ipv4()) && m.type() == BgpMessages.UPDATE)
                        .toList());
    }

    private static List<BgpMessages> fromRouter(Path pcap) {
        try {
            return BgpMessages.read(pcap).stream()
                    .filter(m -> m.sender().equals(router.ipv4()))
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** An UPDATE longer than the 23-byte End-of-RIB marker. */
    private static boolean announcesARoute(BgpMessages message) {
        return message.type() == BgpMessages.UPDATE && message.bytes().length > 23;
    }

    /** The first message of each type, one hex line per file: {@code frr-open.hex}. */
    private static void write(Path directory, String prefix, List<BgpMessages> messages) throws IOException {
        for (Map.Entry<Integer, String> type : TYPES.entrySet()) {
            List<BgpMessages> ofType =
                    messages.stream().filter(m -> m.type() == type.getKey()).toList();
            // the longest UPDATE: a route rather than an End-of-RIB marker, when there is one
            ofType.stream()
                    .max((a, b) -> type.getKey() == BgpMessages.UPDATE
                            ? Integer.compare(a.bytes().length, b.bytes().length)
                            : Integer.compare(ofType.indexOf(b), ofType.indexOf(a)))
                    .ifPresent(m -> writeHex(directory.resolve(prefix + "-" + type.getValue() + ".hex"), m));
        }
    }

    private static void writeHex(Path file, BgpMessages message) {
        try {
            Files.writeString(file, message.hex() + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

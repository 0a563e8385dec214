package io.lbk8s.bfd;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.link.UdpSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two nodes' BFD on loopback, each listening on port 3784 of its own 127.x address, and a scripted peer (a bare UDP
 * socket) for what a real peer is not asked to do: fall silent, or arrive from beyond the link with a lower TTL.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BfdSessionsTest {

    static final IpAddress A = IpAddress.parse("127.0.0.1").orElseThrow();
    static final IpAddress B = IpAddress.parse("127.0.0.2").orElseThrow();
    static final IpAddress SCRIPTED = IpAddress.parse("127.0.0.3").orElseThrow();

    final BlockingQueue<BfdState> seenByA = new LinkedBlockingQueue<>();
    final BlockingQueue<BfdState> seenByB = new LinkedBlockingQueue<>();
    BfdSessions nodeA;
    BfdSessions nodeB;

    @AfterEach
    void stop() {
        for (BfdSessions node : new BfdSessions[] {nodeA, nodeB}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    void twoNodesComeUpAndTheOtherSeesDownAtOnceWhenOneStops() throws Exception {
        nodeA = BfdSessions.open(List.of(InetAddress.ofLiteral("127.0.0.1")));
        nodeB = BfdSessions.open(List.of(InetAddress.ofLiteral("127.0.0.2")));
        BfdSession onA = nodeA.watch(A, B, BfdSettings.DEFAULTS, seenByA::add);
        BfdSession onB = nodeB.watch(B, A, BfdSettings.DEFAULTS, seenByB::add);

        BfdState firstOnA = next(seenByA, 5);
        assertThat(firstOnA).isIn(BfdState.INIT, BfdState.UP);
        if (firstOnA != BfdState.UP) { // A goes straight to Up when B's Init arrives first
            awaitState(seenByA, BfdState.UP);
        }
        awaitState(seenByB, BfdState.UP);
        assertThat(onA.state()).isEqualTo(BfdState.UP);

        long stopped = System.nanoTime();
        onA.close();
        assertThat(next(seenByB, 2)).isEqualTo(BfdState.DOWN);
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofMillis(300));
        assertThat(onB.diagnostic()).isEqualTo(Diagnostic.NEIGHBOR_SIGNALED_SESSION_DOWN);
    }

    @Test
    void aPeerThatFallsSilentIsDownAfterThreeIntervals() throws Exception {
        nodeB = BfdSessions.open(List.of(InetAddress.ofLiteral("127.0.0.2")));
        BfdSession onB = nodeB.watch(B, SCRIPTED, BfdSettings.DEFAULTS, seenByB::add);
        try (UdpSocket peer = UdpSocket.open(new InetSocketAddress("127.0.0.3", BfdSessions.CONTROL_PORT), 255, true)) {
            int theirs = discriminatorOfFirstPacket(peer);
            send(peer, BfdState.INIT, theirs);
            assertThat(next(seenByB, 2)).isEqualTo(BfdState.UP);
            long last = 0;
            for (int i = 0; i < 5; i++) { // Up packets every 200 ms for a second, then nothing
                send(peer, BfdState.UP, theirs);
                last = System.nanoTime();
                Thread.sleep(200);
            }
            assertThat(next(seenByB, 3)).isEqualTo(BfdState.DOWN);
            Duration silent = Duration.ofNanos(System.nanoTime() - last);
            assertThat(silent)
                    .as("3 x 300 ms after the last packet, with room for a busy machine")
                    .isBetween(Duration.ofMillis(880), Duration.ofMillis(1300));
            assertThat(onB.diagnostic()).isEqualTo(Diagnostic.CONTROL_DETECTION_TIME_EXPIRED);
        }
    }

    @Test
    void packetsFromBeyondTheLinkAreDropped() throws Exception {
        nodeB = BfdSessions.open(List.of(InetAddress.ofLiteral("127.0.0.2")));
        BfdSession onB = nodeB.watch(B, SCRIPTED, BfdSettings.DEFAULTS, seenByB::add);
        try (UdpSocket routed = UdpSocket.open(new InetSocketAddress("127.0.0.3", 0), 253, false)) {
            send(routed, BfdState.DOWN, 0);
            assertThat(seenByB.poll(500, TimeUnit.MILLISECONDS))
                    .as("TTL 253 < 254: ignored")
                    .isNull();
            assertThat(onB.state()).isEqualTo(BfdState.DOWN);
        }
        try (UdpSocket neighbour = UdpSocket.open(new InetSocketAddress("127.0.0.3", 0), 255, false)) {
            send(neighbour, BfdState.DOWN, 0);
            assertThat(next(seenByB, 2)).isEqualTo(BfdState.INIT);
        }
    }

    /** Node B's discriminator, from the first packet it sends the scripted peer (within 2 s). */
    private static int discriminatorOfFirstPacket(UdpSocket peer) throws Exception {
        byte[] buffer = new byte[64];
        UdpSocket.Datagram datagram =
                peer.receive(buffer, Duration.ofSeconds(2)).orElseThrow();
        assertThat(datagram.ttl()).as("sent with TTL 255").isEqualTo(255);
        assertThat(datagram.source().getPort()).as("RFC 5881 source port").isBetween(49152, 65535);
        return switch (BfdCodec.decode(buffer, datagram.length())) {
            case BfdCodec.Valid(BfdPacket packet) -> packet.myDiscriminator();
            case BfdCodec.Invalid(String reason) -> throw new AssertionError(reason);
        };
    }

    /** A packet as the scripted peer (discriminator 7) sends it, to whichever session listens for 127.0.0.3. */
    private static void send(UdpSocket peer, BfdState state, int yourDiscriminator) throws Exception {
        BfdPacket packet = new BfdPacket(
                Diagnostic.NONE, state, false, false, false, false, 3, 7, yourDiscriminator, 300_000, 300_000, 0);
        peer.send(new InetSocketAddress("127.0.0.2", BfdSessions.CONTROL_PORT), BfdCodec.encode(packet));
    }

    private static BfdState next(BlockingQueue<BfdState> states, int seconds) throws InterruptedException {
        return states.poll(seconds, TimeUnit.SECONDS);
    }

    private static void awaitState(BlockingQueue<BfdState> states, BfdState wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (states.poll(100, TimeUnit.MILLISECONDS) == wanted) {
                return;
            }
        }
        throw new AssertionError("no " + wanted + " within 5 s");
    }
}

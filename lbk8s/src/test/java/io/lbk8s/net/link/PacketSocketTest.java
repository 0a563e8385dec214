package io.lbk8s.net.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.frame.Wire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Raw sockets on the loopback interface of the test's own namespace; traffic is UDP to 127.0.0.1 only. */
class PacketSocketTest {

    private static final int ETH_P_IP = 0x0800;

    LinkInfo loopback;

    @BeforeEach
    void needsRoot() {
        RootRequired.check();
        loopback = Links.byName("lo").orElseThrow();
    }

    @Test
    void openingOnAMissingInterfaceSaysWhyWithErrno() {
        assertThatThrownBy(() -> PacketSocket.open(
                        999_999, ArpPacket.ETHERTYPE, BpfProgram.arpRequests(), Duration.ofMillis(100)))
                .isInstanceOfSatisfying(NativeIOException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("ENODEV");
                    assertThat(e.errno()).isEqualTo(19);
                })
                .hasMessage("cannot bind the raw socket to interface #999999 (index 999999, ethertype 0x806): "
                        + "No such device (ENODEV); the interface does not exist (any more)");
    }

    @Test
    void receiveReturnsMinusOneWhenTheTimeoutPasses() throws Exception {
        try (PacketSocket socket = PacketSocket.open(
                        loopback, ArpPacket.ETHERTYPE, BpfProgram.arpRequests(), Duration.ofMillis(100));
                Arena arena = Arena.ofConfined()) {
            long start = System.nanoTime();
            assertThat(socket.receive(arena.allocate(2048))).isEqualTo(-1); // no ARP on loopback
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(50), Duration.ofSeconds(2));
        }
    }

    @Test
    void aBatchTakesEveryQueuedFrameInOneReceiveAndSendsThemBack() throws Exception {
        try (DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                PacketSocket socket =
                        PacketSocket.open(loopback, ETH_P_IP, udpTo(udp.getLocalPort()), Duration.ofMillis(200));
                Arena arena = Arena.ofConfined()) {
            FrameBatch batch = new FrameBatch(arena, 8, 2048);
            assertThat(socket.receive(batch)).as("nothing queued: a timeout").isZero();
            for (int i = 0; i < 3; i++) {
                byte[] payload = ("lbk8s-batch-" + i).getBytes();
                udp.send(new DatagramPacket(
                        payload, payload.length, InetAddress.getLoopbackAddress(), udp.getLocalPort()));
            }
            Thread.sleep(50); // let all three queue
            int received = socket.receive(batch);
            // loopback delivers each datagram once as outgoing and once as incoming
            assertThat(received).isBetween(3, 8);
            for (int i = 0; i < received; i++) {
                assertThat(batch.receivedLength(i)).isEqualTo(14 + 20 + 8 + "lbk8s-batch-0".length());
                assertThat(batch.frame(i).get(java.lang.foreign.ValueLayout.JAVA_BYTE, 14 + 20 + 8 + 12))
                        .isBetween((byte) '0', (byte) '2');
            }
            // send the first frame back out, twice, with its length set: both arrive
            batch.setLength(0, batch.receivedLength(0));
            batch.setLength(1, batch.receivedLength(0));
            MemorySegment.copy(batch.frame(0), 0, batch.frame(1), 0, batch.receivedLength(0));
            socket.send(batch, 2);
            int echoed = 0;
            for (int attempt = 0; attempt < 10 && echoed < 2; attempt++) {
                echoed += socket.receive(batch);
            }
            assertThat(echoed).isGreaterThanOrEqualTo(2);
        }
    }

    /**
     * Only this test's datagrams (IPv4 without options, UDP, to {@code port}): other processes' traffic on the host's
     * loopback (an API server, another test) must not show up in what it counts.
     */
    private static BpfProgram udpTo(int port) {
        return new BpfProgram(List.of(
                new BpfProgram.Instruction(BpfProgram.LD_B_ABS, 0, 0, 14 + 9), // IPv4 protocol
                new BpfProgram.Instruction(BpfProgram.JMP_JEQ_K, 0, 3, 17), // UDP, else drop
                new BpfProgram.Instruction(BpfProgram.LD_H_ABS, 0, 0, 14 + 20 + 2), // UDP destination port
                new BpfProgram.Instruction(BpfProgram.JMP_JEQ_K, 0, 1, port),
                new BpfProgram.Instruction(BpfProgram.RET_K, 0, 0, 0xffff),
                new BpfProgram.Instruction(BpfProgram.RET_K, 0, 0, 0)));
    }

    /** No ARP ever appears on loopback, so the ARP socket stays empty; other processes' IP traffic may show up. */
    @Test
    void awaitReadableSaysWhichSocketHasAFrameAndReceiveNowNeverWaits() throws Exception {
        try (PacketSocket arp = PacketSocket.open(
                        loopback, ArpPacket.ETHERTYPE, BpfProgram.acceptAll(), Duration.ofSeconds(5));
                PacketSocket ip = PacketSocket.open(loopback, ETH_P_IP, BpfProgram.acceptAll(), Duration.ofSeconds(5));
                Arena arena = Arena.ofConfined();
                DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            MemorySegment buffer = arena.allocate(2048);
            long start = System.nanoTime();
            assertThat(PacketSocket.awaitReadable(new PacketSocket[] {arp}, Duration.ofMillis(100)))
                    .isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(90), Duration.ofSeconds(2));
            start = System.nanoTime();
            assertThat(arp.receiveNow(buffer)).isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("not the 5 s receive timeout")
                    .isLessThan(Duration.ofSeconds(1));

            byte[] payload = "lbk8s-await".getBytes();
            udp.send(new DatagramPacket(payload, payload.length, InetAddress.getLoopbackAddress(), udp.getLocalPort()));
            assertThat(PacketSocket.awaitReadable(new PacketSocket[] {arp, ip}, Duration.ofSeconds(2)))
                    .isEqualTo(0b10);
            assertThat(ip.receiveNow(buffer)).isPositive();
            ip.discardQueued();
        }
    }

    @Test
    void receivesFramesCountsThemAndForcesALargeBuffer() throws Exception {
        try (PacketSocket socket =
                        PacketSocket.open(loopback, ETH_P_IP, BpfProgram.acceptAll(), Duration.ofMillis(200));
                Arena arena = Arena.ofConfined();
                DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            assertThat(socket.requestReceiveBuffer(4 << 20)).isTrue(); // root has CAP_NET_ADMIN
            assertThat(socket.receiveBufferBytes()).isEqualTo(8 << 20); // the kernel doubles it
            byte[] payload = "lbk8s-packet-socket-test".getBytes();
            udp.send(new DatagramPacket(payload, payload.length, InetAddress.getLoopbackAddress(), udp.getLocalPort()));
            MemorySegment buffer = arena.allocate(65_536);
            boolean seen = false;
            for (int i = 0; i < 50 && !seen; i++) {
                int n = socket.receive(buffer);
                seen = n > 14 + 28
                        && Wire.u16(buffer, 12) == ETH_P_IP
                        && new String(buffer.asSlice(n - payload.length, payload.length)
                                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                                .equals(new String(payload));
            }
            assertThat(seen).as("our datagram seen on lo").isTrue();
            assertThat(socket.statistics().packets()).isPositive();
        }
    }

    @Test
    void aTinyBufferDropsAndStatisticsSayHowMany() throws Exception {
        try (PacketSocket socket =
                        PacketSocket.open(loopback, ETH_P_IP, BpfProgram.acceptAll(), Duration.ofMillis(100));
                DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            socket.requestReceiveBuffer(1); // the kernel raises this to its minimum, a few frames
            socket.statistics(); // reading resets: start from zero
            byte[] payload = new byte[1000];
            for (int i = 0; i < 200; i++) {
                udp.send(new DatagramPacket(
                        payload, payload.length, InetAddress.getLoopbackAddress(), udp.getLocalPort()));
            }
            PacketSocket.Stats stats = socket.statistics();
            assertThat(stats.drops()).isPositive();
            assertThat(stats.packets()).isGreaterThanOrEqualTo(stats.drops());
            assertThat(socket.statistics().drops())
                    .as("reset by the previous read")
                    .isLessThan(stats.drops());
        }
    }

    /** The kernel checks a program when it is attached; the longest filter by target must pass that check. */
    @Test
    void theKernelTakesTheLongestFiltersByTargetAndTheirReplacements() throws Exception {
        int[] targets = java.util.stream.IntStream.range(0, BpfProgram.MAX_TARGETS)
                .map(i -> 0x0a00_0000 + i)
                .toArray();
        try (PacketSocket arp = PacketSocket.open(
                        loopback, ArpPacket.ETHERTYPE, BpfProgram.arpRequestsFor(targets), Duration.ofMillis(100));
                PacketSocket ndp = PacketSocket.open(
                        loopback,
                        NdpPacket.ETHERTYPE,
                        BpfProgram.neighborSolicitationsFor(targets),
                        Duration.ofMillis(100))) {
            arp.replaceFilter(BpfProgram.arpRequestsFor(new int[0]));
            arp.replaceFilter(BpfProgram.arpRequestsFor(java.util.Arrays.copyOf(targets, 251)));
            ndp.replaceFilter(BpfProgram.neighborSolicitationsFor(new int[] {1}));
        }
    }

    @Test
    void anInvalidFrameLengthIsRefusedBeforeTheKernel() throws Exception {
        try (PacketSocket socket = PacketSocket.open(
                        loopback, ArpPacket.ETHERTYPE, BpfProgram.arpRequests(), Duration.ofMillis(100));
                Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(64);
            assertThatThrownBy(() -> socket.send(frame, 65)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> socket.send(frame, 10)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}

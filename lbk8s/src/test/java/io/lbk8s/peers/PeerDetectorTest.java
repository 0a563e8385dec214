package io.lbk8s.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.net.Fence;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two detectors on loopback (two ports), without any API: the shell around {@link Membership} sends, hears, judges,
 * renews the fence and tells its listener; a stopped peer is declared dead in the detection time; a flood on the port
 * neither spins the thread nor hides the live peer.
 */
class PeerDetectorTest {
    static final PeerKeys KEYS = ((PeerKeys.Parsed.Valid) PeerKeys.parse("k".repeat(40))).keys();

    final PrometheusMeterRegistry registryA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final Fence fenceA = Fence.renewable();
    PeerDetector a;
    PeerDetector b;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
        fenceA.close();
    }

    private void startBoth() throws Exception {
        a = PeerDetector.start("node-a", PeerSettings.defaults(freePort()), fenceA, s -> {}, registryA);
        b = PeerDetector.start(
                "node-b",
                PeerSettings.defaults(freePort()),
                Fence.unlimited(),
                s -> {},
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        a.keys(KEYS);
        b.keys(KEYS);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        a.peers(Map.of("node-b", new InetSocketAddress(loopback, b.port())));
        b.peers(Map.of("node-a", new InetSocketAddress(loopback, a.port())));
    }

    @Test
    void peersHearEachOtherAndTheFenceIsRenewedOnlyWhileReady() throws Exception {
        assertThat(fenceA.permits()).isFalse();
        startBoth();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> a.snapshot().liveness("node-b") == Liveness.ALIVE
                        && a.snapshot().ready());
        assertThat(fenceA.permits())
                .as("renewed with each heartbeat while ready")
                .isTrue();
        assertThat(b.snapshot().liveness("node-a")).isEqualTo(Liveness.ALIVE);
        assertThat(registryA.scrape())
                .contains("lbk8s_peers_peer_state{peer=\"node-b\",state=\"alive\"} 1.0")
                .containsPattern("lbk8s_peers_messages_received_total [1-9]");
    }

    @Test
    void aPeerThatStopsIsDeadWithinTheDetectionTimeAndOneThatLeavesAtOnce() throws Exception {
        startBoth();
        await().atMost(Duration.ofSeconds(5)).until(() -> a.snapshot().liveness("node-b") == Liveness.ALIVE);
        long stopped = System.nanoTime();
        b.close(); // no message: silence
        await().atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> a.snapshot().liveness("node-b") == Liveness.DEAD);
        assertThat(Duration.ofNanos(System.nanoTime() - stopped))
                .isBetween(Duration.ofMillis(190), Duration.ofMillis(700));
        assertThat(a.snapshot().failedSilently("node-b")).isTrue();
        assertThat(a.snapshot().ready())
                .as("the survivor of two stays a candidate")
                .isTrue();

        b = PeerDetector.start(
                "node-b",
                PeerSettings.defaults(freePort()),
                Fence.unlimited(),
                s -> {},
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        b.keys(KEYS);
        b.peers(Map.of("node-a", new InetSocketAddress(InetAddress.getLoopbackAddress(), a.port())));
        a.peers(Map.of("node-b", new InetSocketAddress(InetAddress.getLoopbackAddress(), b.port())));
        await().atMost(Duration.ofSeconds(5)).until(() -> a.snapshot().liveness("node-b") != Liveness.DEAD);
        long left = System.nanoTime();
        b.leave();
        await().atMost(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(2))
                .until(() -> a.snapshot().liveness("node-b") == Liveness.DEAD);
        // under load the message may take a while; what tells "left" from "fell silent" is the reason, checked next
        assertThat(Duration.ofNanos(System.nanoTime() - left))
                .as("before a silence could have been detected")
                .isLessThan(PeerSettings.defaults(0).membership().timeout());
        assertThat(a.snapshot().failedSilently("node-b"))
                .as("it left, it did not fall silent")
                .isFalse();
    }

    @Test
    void aFloodOnThePortWithinItsBudgetNeitherSpinsTheDetectorNorHidesALivePeer() throws Exception {
        startBoth();
        await().atMost(Duration.ofSeconds(5)).until(() -> a.snapshot().liveness("node-b") == Liveness.ALIVE);
        long cpuBefore = detectorCpuNanos();
        byte[] junk = new byte[200];
        junk[0] = 'L';
        long floodStart = System.nanoTime();
        long sent = 0;
        try (DatagramSocket socket = new DatagramSocket()) {
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), a.port());
            // 40,000 a second, half what the detector reads per second: beyond its budget it drops datagrams unread,
            // and a live peer's heartbeats among them may be lost (the probe before any takeover keeps that harmless)
            for (long tick = 0;
                    System.nanoTime() - floodStart < Duration.ofSeconds(2).toNanos();
                    tick++) {
                for (int i = 0; i < 400; i++) {
                    socket.send(new DatagramPacket(junk, junk.length, target));
                    sent++;
                }
                assertThat(a.snapshot().liveness("node-b"))
                        .as("the live peer during the flood")
                        .isEqualTo(Liveness.ALIVE);
                java.util.concurrent.locks.LockSupport.parkNanos(
                        floodStart + (tick + 1) * 10_000_000L - System.nanoTime());
            }
        }
        double cpuShare = (double) (detectorCpuNanos() - cpuBefore) / (System.nanoTime() - floodStart);
        System.out.printf(
                "flood: %d datagrams/s, detector thread %.0f %% of a CPU%n",
                sent * 1_000_000_000L / (System.nanoTime() - floodStart), cpuShare * 100);
        assertThat(cpuShare).as("the detector's share of a CPU while flooded").isLessThan(0.5);
        assertThat(registryA.scrape()).containsPattern("lbk8s_peers_dropped_total\\{reason=\"malformed\"} [1-9]");
    }

    private static long detectorCpuNanos() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("peer-detector"))
                .mapToLong(t -> threads.getThreadCpuTime(t.threadId()))
                .filter(t -> t > 0)
                .sum();
    }

    private static int freePort() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

package io.lbk8s.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.Fence;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A detector frozen longer than its peers' detection time (SIGSTOP of its JVM) comes back with its fence lapsed, and
 * keeps it lapsed until its speaker says it has withdrawn what it answered before: otherwise the kernel would answer
 * for an address another node took meanwhile, before the speaker had planned afresh.
 */
class PeerDetectorStallTest {
    static final String KEY = "s".repeat(40);

    /** No rejoin hold, so that the frozen node is readmitted at once and only the stall keeps its fence lapsed. */
    static PeerSettings settings(int port) {
        return new PeerSettings(
                port,
                PeerSettings.DEFAULT_INTERVAL,
                new Membership.Settings(
                        Duration.ofMillis(250), Duration.ZERO, Duration.ofSeconds(60), Duration.ofMinutes(5)),
                PeerSettings.DEFAULT_CLOCK_WINDOW,
                PeerSettings.DEFAULT_SECRET);
    }

    @Test
    void afterAStallTheFenceWaitsForTheSpeaker() throws Exception {
        int childPort = freePort();
        try (PeerDetector peer = PeerDetector.start(
                "node-b",
                settings(freePort()),
                Fence.unlimited(),
                s -> {},
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
            peer.keys(((PeerKeys.Parsed.Valid) PeerKeys.parse(KEY)).keys());
            peer.peers(Map.of("node-a", new InetSocketAddress(InetAddress.getLoopbackAddress(), childPort)));
            Process child = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "--enable-native-access=ALL-UNNAMED",
                            "-cp",
                            classPath(),
                            StallChild.class.getName(),
                            String.valueOf(childPort),
                            String.valueOf(peer.port()),
                            KEY)
                    .redirectErrorStream(true)
                    .start();
            LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (var out =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (java.io.IOException ignored) {
                    // the child is gone
                }
            });
            try {
                awaitLine(lines, "fence true", Duration.ofSeconds(20));
                signal(child, "STOP");
                Thread.sleep(600); // longer than the detection time: the peer declares it dead
                signal(child, "CONT");
                awaitLine(lines, "stalls 1", Duration.ofSeconds(5));
                List<String> meanwhile = drainFor(lines, Duration.ofMillis(700));
                assertThat(meanwhile)
                        .as("the fence while the speaker has not handled the stall")
                        .doesNotContain("fence true");
                new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8).println("handled 1");
                awaitLine(lines, "fence true", Duration.ofSeconds(2));
            } finally {
                child.destroyForcibly();
                child.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static void awaitLine(LinkedBlockingQueue<String> lines, String wanted, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(20, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.equals(wanted)) {
                    return;
                }
            }
        }
        throw new AssertionError("no line \"" + wanted + "\" within " + timeout + "; saw " + seen);
    }

    private static List<String> drainFor(LinkedBlockingQueue<String> lines, Duration duration)
            throws InterruptedException {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(10, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
            }
        }
        return seen;
    }

    private static void signal(Process process, String signal) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
                        .start()
                        .waitFor())
                .isZero();
    }

    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static int freePort() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

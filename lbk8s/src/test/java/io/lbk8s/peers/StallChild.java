package io.lbk8s.peers;

import io.lbk8s.net.Fence;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A detector in a JVM of its own, so that a test can freeze it (SIGSTOP): it prints "fence true" or "fence false"
 * whenever its fence changes and "stalls N" when its detector counts a stall, and on "handled N" tells the detector
 * that the stall was dealt with. Args: its port, its peer's port, the key.
 */
final class StallChild {
    private StallChild() {}

    public static void main(String[] args) throws Exception {
        Fence fence = Fence.renewable();
        PeerDetector detector = PeerDetector.start(
                "node-a",
                PeerDetectorStallTest.settings(Integer.parseInt(args[0])),
                fence,
                s -> {},
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        detector.keys(((PeerKeys.Parsed.Valid) PeerKeys.parse(args[2])).keys());
        detector.peers(
                Map.of("node-b", new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]))));
        Thread.ofPlatform().daemon().start(() -> {
            boolean permits = false;
            int stalls = 0;
            long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (System.nanoTime() < end) {
                if (fence.permits() != permits) {
                    permits = !permits;
                    System.out.println("fence " + permits);
                }
                if (detector.snapshot().stalls() != stalls) {
                    stalls = detector.snapshot().stalls();
                    System.out.println("stalls " + stalls);
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        System.out.println("ready");
        var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("handled ")) {
                detector.stallHandled(Integer.parseInt(line.substring(8)));
                System.out.println("ok");
            }
        }
        detector.close();
    }
}

package io.lbk8s.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.testkit.TestApiServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The controller's first Service after a start, apart from the rest of the pipeline: a controller process of each
 * distribution given (as deployed: {@link BgpPhases#launcher}) started against a test API server that earlier rounds
 * have already warmed, ready and leading with its configuration loaded (/readyz says "ready: ...") and settled (1 s
 * later: the configuration's first reconcile runs on after that), then one Service created -> its IP in status, then a
 * second one (warm).
 * Rounds alternate the distributions, so that they share the machine's load. Not a test. Usage:
 * {@code FirstServiceBenchmark ROUNDS DIST_DIR...}.
 */
public final class FirstServiceBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        List<Path> dists =
                List.of(args).subList(1, args.length).stream().map(Path::of).toList();
        Path work = Files.createTempDirectory("lbk8s-first-service");
        Map<Path, List<long[]>> results = new LinkedHashMap<>();
        dists.forEach(d -> results.put(d, new ArrayList<>()));
        try (TestApiServer server = TestApiServer.start();
                KubernetesClient client = server.client();
                HttpClient http = HttpClient.newHttpClient()) {
            ControllerBenchmark.prepare(server, 1000);
            Path kubeconfig = server.writeKubeconfig(work.resolve("kubeconfig"));
            var watch = new ControllerBenchmark.IpWatch();
            var informer = client.services().inNamespace("default").inform(watch);
            for (int round = -1; round < rounds; round++) { // round -1 warms the test API server, not counted
                for (Path dist : dists) {
                    Path launcher = BgpPhases.launcher(
                            Files.createDirectories(work.resolve("d" + dists.indexOf(dist))),
                            dist,
                            "controller",
                            false);
                    int port = freePort();
                    Process controller = new ProcessBuilder(
                                    launcher.toString(),
                                    "controller",
                                    "--kubeconfig",
                                    kubeconfig.toString(),
                                    "--namespace",
                                    "lbk8s-system",
                                    "--leader-elect=false",
                                    "--metrics-address",
                                    "127.0.0.1",
                                    "--metrics-port",
                                    String.valueOf(port))
                            .redirectErrorStream(true)
                            .redirectOutput(logOf(work, round, dists.indexOf(dist)))
                            .start();
                    try {
                        awaitReady(http, port, controller);
                        // its first reconcile of the configuration (and of the Services already there) runs on after
                        // it says ready: settled, as a cluster's controller is when a user creates a Service
                        Thread.sleep(SETTLE_MILLIS);
                        if (KEEP_LOGS != null) {
                            System.err.println("round " + (round + 1) + " d" + dists.indexOf(dist) + " ready at "
                                    + java.time.Instant.now());
                        }
                        long first = assign(client, watch, "r" + (round + 1) + "-d" + dists.indexOf(dist) + "-a");
                        long second = assign(client, watch, "r" + (round + 1) + "-d" + dists.indexOf(dist) + "-b");
                        if (round >= 0) {
                            results.get(dist).add(new long[] {first, second});
                        }
                    } finally {
                        controller.destroy();
                        controller.waitFor(10, TimeUnit.SECONDS);
                    }
                }
            }
            informer.close();
        }
        for (var entry : results.entrySet()) {
            List<Long> first = entry.getValue().stream().map(r -> r[0]).sorted().toList();
            List<Long> second =
                    entry.getValue().stream().map(r -> r[1]).sorted().toList();
            System.out.printf(
                    Locale.ROOT,
                    "| controller | %s: first Service after a start -> IP in status, median / max of %d starts"
                            + " (second Service: median / max) | %d ms / %d ms (%d ms / %d ms) |%n",
                    entry.getKey().getFileName(),
                    first.size(),
                    first.get(first.size() / 2),
                    first.getLast(),
                    second.get(second.size() / 2),
                    second.getLast());
            System.err.println(entry.getKey().getFileName() + " first, second (ms): "
                    + entry.getValue().stream().map(r -> r[0] + "," + r[1]).toList());
        }
        L2Benchmark.deleteTree(work);
    }

    /** {@code -Dbench.settleMillis}: how long after ready the first Service is created (default 1000). */
    private static final long SETTLE_MILLIS = Long.getLong("bench.settleMillis", 1000);

    /** {@code -Dbench.keepLogs=DIR}: each start's log kept there, to see where a first Service's time went. */
    private static final String KEEP_LOGS = System.getProperty("bench.keepLogs");

    private static java.io.File logOf(Path work, int round, int dist) throws java.io.IOException {
        return KEEP_LOGS == null
                ? work.resolve("controller.log").toFile()
                : Files.createDirectories(Path.of(KEEP_LOGS))
                        .resolve("controller-r" + (round + 1) + "-d" + dist + ".log")
                        .toFile();
    }

    private static long assign(KubernetesClient client, ControllerBenchmark.IpWatch watch, String name)
            throws InterruptedException {
        watch.expect(1);
        long start = System.nanoTime();
        if (KEEP_LOGS != null) {
            System.err.println(name + " created at " + java.time.Instant.now());
        }
        client.services()
                .inNamespace("default")
                .resource(ControllerBenchmark.service(name))
                .create();
        if (!watch.latch.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " got no IP within 10 s");
        }
        return (watch.seenAt.get(name) - start) / 1_000_000;
    }

    private static void awaitReady(HttpClient http, int port, Process controller) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        HttpRequest readyz = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                .timeout(Duration.ofSeconds(2))
                .build();
        while (System.nanoTime() < deadline && controller.isAlive()) {
            try {
                // "ready: ..." once it leads with its configuration loaded; before lead() it says "standby: ...", and
                // a Service created then would wait for the configuration's first reconcile, not measure its own
                var response = http.send(readyz, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().startsWith("ready:")) {
                    return;
                }
            } catch (java.io.IOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the controller was not ready within 60 s");
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

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
 * have already warmed, ready (/readyz), then one Service created -> its IP in status, then a second one (warm).
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
                            .redirectOutput(work.resolve("controller.log").toFile())
                            .start();
                    try {
                        awaitReady(http, port, controller);
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

    private static long assign(KubernetesClient client, ControllerBenchmark.IpWatch watch, String name)
            throws InterruptedException {
        watch.expect(1);
        long start = System.nanoTime();
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
                if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
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

package io.lbk8s.cli;

import io.lbk8s.text.Durations;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The image build's training run for a role's AOT cache (dist/src/build/assemble): the role against a test API server
 * seeded with a pool, a node and a Service, until it answers /readyz (the controller: and counts the seeded Service as
 * assigned) and has served /metrics, then exit so that the JVM writes the cache. One cache per role: the JVM loads
 * every class of its cache at start, so a cache of both roles made each hold the other's classes. Hidden: not for users.
 */
@Command(name = "aot-training", hidden = true, description = "Run one role briefly to train its AOT cache.")
final class AotTrainingCommand implements Callable<Integer> {
    enum Role {
        controller,
        speaker
    }

    @Option(names = "--role", required = true, description = "The role to train: ${COMPLETION-CANDIDATES}.")
    Role role;

    @Option(names = "--kubeconfig", required = true)
    String kubeconfig;

    @Option(names = "--node", required = true, description = "The seeded Node the speaker runs as.")
    String node;

    @Option(
            names = "--within",
            defaultValue = "60s",
            description = "Give up after this long (default: ${DEFAULT-VALUE}).")
    String within;

    @Override
    public Integer call() throws Exception {
        int port = freePort();
        List<String> common = List.of(
                "--kubeconfig", kubeconfig, "--metrics-address", "127.0.0.1", "--metrics-port", String.valueOf(port));
        switch (role) {
            case controller -> start("controller", common, "--leader-elect=false");
            case speaker ->
                start(
                        "speaker",
                        common,
                        "--node",
                        node,
                        "--pod-name",
                        "speaker-" + node,
                        "--peer-port",
                        String.valueOf(freePort()));
        }
        long deadline = System.nanoTime() + Durations.parse("--within", within).toNanos();
        try (HttpClient http = HttpClient.newHttpClient()) {
            awaitReady(http, port, deadline);
            // the controller has taken the seeded Service's assignment over (and written what it writes) once it
            // counts it; exiting before would leave that path out of the cache
            while (role == Role.controller && !metrics(http, port).contains("\nlbk8s_services_assigned 1.0")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the controller did not count the seeded Service as assigned");
                }
                Thread.sleep(50);
            }
            metrics(http, port);
        }
        System.exit(0); // the roles' shutdown hooks run, as on SIGTERM, and the JVM writes the cache
        return 0;
    }

    private static void start(String role, List<String> common, String... more) {
        List<String> args = new ArrayList<>(List.of(role));
        args.addAll(common);
        args.addAll(List.of(more));
        Thread.ofPlatform().daemon().name(role).start(() -> Main.commandLine().execute(args.toArray(String[]::new)));
    }

    private static void awaitReady(HttpClient http, int port, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(get(port, "/readyz"), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return;
                }
            } catch (IOException notYetListening) {
                // the role has not opened its port yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the role on port " + port + " was not ready in time");
    }

    private static String metrics(HttpClient http, int port) throws IOException, InterruptedException {
        return http.send(get(port, "/metrics"), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static HttpRequest get(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

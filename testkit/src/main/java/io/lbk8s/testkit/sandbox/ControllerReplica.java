package io.lbk8s.testkit.sandbox;

import io.lbk8s.testkit.net.Shell;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One replica of the controller's Deployment: a {@code bin/lbk8s controller} process with its own identity
 * ({@code POD_NAME}) and port for /metrics and /readyz, that a test can kill -9 and start again as the kubelet would.
 * Each run logs to its own file, {@code <name>-<run>.log}. It dies with the JVM that started it.
 */
public final class ControllerReplica implements AutoCloseable {
    /** How a controller's log says the port of its /metrics (with --metrics-port 0). */
    static final Pattern METRICS_PORT = Pattern.compile("metrics on port (\\d+)");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    /** What /readyz answered. */
    public record Answer(int status, String body) {}

    private final String name;
    private final List<String> command;
    private final Path logs;
    private Process process;
    private Path log;
    private int runs;
    private int port;

    ControllerReplica(String name, Path kubeconfig, String namespace, List<String> flags, Path logs) {
        this.name = name;
        this.logs = logs;
        List<String> command = new ArrayList<>(List.of(
                "/bin/bash",
                "-c",
                Shell.DIES_WITH_STDIN,
                "lbk8s-" + name,
                Sandbox.REPO.resolve("bin/lbk8s").toString(),
                "controller",
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                namespace,
                "--metrics-address",
                "127.0.0.1",
                "--metrics-port",
                "0"));
        command.addAll(flags);
        this.command = List.copyOf(command);
    }

    public String name() {
        return name;
    }

    /** Starts a new run (the first, or again after {@link #kill} or {@link #stop}). */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is running");
        }
        runs++;
        log = logs.resolve(name + "-" + runs + ".log");
        port = 0;
        var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("POD_NAME", name);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL to the controller's JVM, as when its node dies: no shutdown hook runs, nothing is released. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly); // the JVM first, then its wrapper
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(10));
    }

    /** SIGTERM, as at a rolling update; SIGKILL if it has not exited after 10 s. */
    public synchronized void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!awaitExit(Duration.ofSeconds(10))) {
            kill();
        }
    }

    private boolean awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The port of this run's /metrics and /readyz, once its log has said it (empty before, or if it died). */
    public synchronized Optional<Integer> port() {
        if (port == 0 && log != null) {
            Matcher m = METRICS_PORT.matcher(log());
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
        }
        return port == 0 || !isAlive() ? Optional.empty() : Optional.of(port);
    }

    /** What this run's /readyz answers; empty while it does not answer. */
    public Optional<Answer> readyz() {
        return port().flatMap(p -> get(p, "/readyz"));
    }

    /** This run's /metrics (Prometheus text); empty while it does not answer. */
    public Optional<String> metrics() {
        return port().flatMap(p -> get(p, "/metrics"))
                .filter(a -> a.status() == 200)
                .map(Answer::body);
    }

    /** Leading, as this replica's /readyz says: ready and not a standby. */
    public boolean saysLeading() {
        return readyz().map(a -> a.status() == 200 && a.body().startsWith("ready"))
                .orElse(false);
    }

    private static Optional<Answer> get(int port, String path) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return Optional.of(new Answer(response.statusCode(), response.body()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** This run's output so far. */
    public synchronized String log() {
        try {
            return log == null || !Files.exists(log) ? "" : new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of this run's output, for failure messages. */
    public String logTail(int lines) {
        List<String> all = log().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    @Override
    public String toString() {
        return name + " (run " + runs + ", " + (isAlive() ? "running" : "not running") + ", log " + log + ")";
    }

    @Override
    public void close() {
        stop();
    }
}

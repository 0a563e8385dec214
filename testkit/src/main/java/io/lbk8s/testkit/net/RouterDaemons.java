package io.lbk8s.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** What the three router classes share: a working directory per run, their daemons, their CLIs. */
final class RouterDaemons {

    static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    static final Duration STOP_GRACE = Duration.ofSeconds(3);
    static final Duration CLI_TIMEOUT = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final TestNetwork network;
    private final String namespace;
    private final Path directory;
    private final List<NamespacedProcess> processes = new ArrayList<>();

    private RouterDaemons(TestNetwork network, String namespace, Path directory) {
        this.network = network;
        this.namespace = namespace;
        this.directory = directory;
    }

    /**
     * A fresh directory for one run of one router in {@code namespace}, under the network's log directory (so it goes
     * with the network): configs, pid files, sockets and logs. A second run in the same namespace gets its own.
     */
    static RouterDaemons in(TestNetwork network, String namespace, RouterKind kind) {
        try {
            Path parent = Files.createDirectories(network.logDirectory().resolve("routers"));
            Path directory = Files.createTempDirectory(
                    parent, namespace + "-" + kind.name().toLowerCase() + "-");
            return new RouterDaemons(network, namespace, directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String namespace() {
        return namespace;
    }

    Path directory() {
        return directory;
    }

    Path file(String name) {
        return directory.resolve(name);
    }

    Path write(String name, String content) {
        try {
            return Files.writeString(directory.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a daemon in the foreground, its output in {@code <name>.log}; stopped by {@link #stopAll()}. */
    NamespacedProcess start(String name, List<String> command) {
        NamespacedProcess process = network.start(namespace, command, directory.resolve(name + ".log"));
        processes.add(process);
        return process;
    }

    List<NamespacedProcess> processes() {
        return List.copyOf(processes);
    }

    List<Path> logs() {
        return processes.stream().map(NamespacedProcess::logFile).toList();
    }

    /** Runs a CLI command in the namespace; its stdout, or an exception with what it printed. */
    String cli(List<String> command) {
        CommandResult result = Shell.run(CLI_TIMEOUT, Shell.inNamespace(namespace, command));
        if (!result.ok()) {
            throw new IllegalStateException("`" + Shell.commandLine(command) + "` in " + namespace
                    + (result.timedOut() ? " timed out" : " exited with " + result.exitCode()) + ": "
                    + result.output().strip());
        }
        return result.stdout();
    }

    /** Whether a CLI command succeeds now: for readiness checks. */
    boolean answers(List<String> command) {
        return Shell.run(CLI_TIMEOUT, Shell.inNamespace(namespace, command)).ok();
    }

    /** Waits until {@code command} succeeds; fails early, with its log, if a daemon died. */
    void awaitAnswer(List<String> command) {
        Poll.until(
                "`" + Shell.commandLine(command) + "` answering in " + namespace,
                () -> {
                    processes.stream().filter(p -> !p.isAlive()).findFirst().ifPresent(dead -> {
                        throw new IllegalStateException(dead + " exited; its log ends with:\n" + dead.logTail(20));
                    });
                    return answers(command);
                },
                ok -> ok,
                START_TIMEOUT);
    }

    static JsonNode json(String text) {
        return JSON.readTree(text.isBlank() ? "{}" : text);
    }

    /** SIGTERM to every daemon (so FRR's zebra removes its routes), then SIGKILL to what is left. */
    void stopAll() {
        processes.forEach(NamespacedProcess::terminate);
        processes.forEach(p -> p.stop(STOP_GRACE));
    }
}

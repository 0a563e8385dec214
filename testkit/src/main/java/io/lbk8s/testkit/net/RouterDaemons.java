package io.lbk8s.testkit.net;

import io.lbk8s.testkit.TempFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
    private final Path runDirectory;
    private final List<NamespacedProcess> processes = new ArrayList<>();

    private RouterDaemons(TestNetwork network, String namespace, Path directory, Path runDirectory) {
        this.network = network;
        this.namespace = namespace;
        this.directory = directory;
        this.runDirectory = runDirectory;
    }

    /**
     * Fresh directories for one run of one router in {@code namespace}: configs and logs under the network's log
     * directory (kept when the test keeps its logs), sockets and pid files in a short one under the temporary
     * directory, because a Unix socket's path must fit in 108 bytes. A second run in the same namespace gets its own.
     */
    static RouterDaemons in(TestNetwork network, String namespace, RouterKind kind) {
        String name = namespace + "-" + kind.name().toLowerCase(Locale.ROOT) + "-";
        try {
            Path parent = Files.createDirectories(
                    network.logDirectory().toAbsolutePath().resolve("routers"));
            Path directory = Files.createTempDirectory(parent, name);
            // named like the network's temporary logs, so removeStale() finds it after a crash
            Path runDirectory = Files.createTempDirectory(TestNetwork.TEMPORARY_LOGS_PREFIX + network.id() + "-run-");
            return new RouterDaemons(network, namespace, directory, runDirectory);
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

    /** Where sockets and pid files go. */
    Path runDirectory() {
        return runDirectory;
    }

    Path runFile(String name) {
        return runDirectory.resolve(name);
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

    /**
     * SIGKILL to the daemon started as {@code name}, as a crash would end it: no clean-up of its own (its sessions end
     * without a NOTIFICATION, what it installed stays). It is then no longer one of {@link #processes()}, so that it can
     * be started again under the same name.
     */
    void kill(String name) {
        NamespacedProcess daemon = started(name, true);
        daemon.kill();
        if (daemon.waitFor(STOP_GRACE).isEmpty()) {
            throw new IllegalStateException(daemon + " still runs after SIGKILL");
        }
        processes.remove(daemon);
    }

    /**
     * Waits (at most {@code timeout}) until the daemon started as {@code name} has exited of its own accord (after a
     * CLI command told it to), then forgets it, so that it can be started again under the same name.
     */
    void awaitExit(String name, Duration timeout) {
        NamespacedProcess daemon = started(name, false); // it may have exited already
        if (daemon.waitFor(timeout).isEmpty()) {
            throw new IllegalStateException(daemon + " still runs " + timeout.toMillis() + " ms later");
        }
        processes.remove(daemon);
    }

    /** The daemon started as {@code name} and not yet forgotten; {@code alive}: only if it still runs. */
    private NamespacedProcess started(String name, boolean alive) {
        Path log = directory.resolve(name + ".log");
        return processes.stream()
                .filter(p -> p.logFile().equals(log) && (p.isAlive() || !alive))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + name + " started in " + namespace));
    }

    List<NamespacedProcess> processes() {
        return List.copyOf(processes);
    }

    List<Path> logs() {
        return processes.stream().map(NamespacedProcess::logFile).toList();
    }

    /** Runs a CLI command in the namespace; its stdout, or an exception with what it printed. */
    String cli(List<String> command) {
        return check(command, Shell.run(CLI_TIMEOUT, Shell.inNamespace(namespace, command)));
    }

    /** Runs a CLI command in the namespace; a non-zero exit is a result. */
    CommandResult run(List<String> command) {
        return Shell.run(CLI_TIMEOUT, Shell.inNamespace(namespace, command));
    }

    /** The stdout of a command that succeeded; an exception with what it printed otherwise. */
    String check(List<String> command, CommandResult result) {
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
        TempFiles.deleteRecursively(runDirectory);
    }
}

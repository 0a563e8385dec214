package io.lbk8s.demo;

import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.cluster.KubernetesCluster;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Removes everything the demo made, then checks that nothing is left: the sandbox's namespaces and host interface,
 * every process this JVM started (directly or not), and the demo's temporary directory.
 */
final class Teardown {
    private static final Duration GRACE = Duration.ofSeconds(5);
    private static final Duration SPEAKER_GRACE = Duration.ofSeconds(3);

    /**
     * @param removed what there was, for the closing sentence
     * @param left    what is still there; empty when the machine is as before
     */
    record Result(List<String> removed, List<String> left) {}

    private Teardown() {}

    /**
     * @param sandbox   the sandbox, if it got as far as starting
     * @param directory the demo's own directory, deleted at the end; empty when the user asked to keep the logs
     */
    static Result run(Optional<Sandbox> sandbox, Optional<Path> directory) {
        return run(directory, (removed, left) -> sandbox.ifPresent(s -> close(s, removed, left)));
    }

    /** The same for {@code demo/run --kubernetes}: the cluster removes its nodes' processes, mounts and cgroups. */
    static Result runCluster(Optional<KubernetesCluster> cluster, Optional<Path> directory) {
        return run(
                directory,
                (removed, left) -> cluster.ifPresent(c -> {
                    try {
                        c.close();
                        removed.add("cluster " + c.network().id() + " ("
                                + String.join(", ", c.network().namespaces())
                                + ", its nodes' processes, mounts and cgroups)");
                    } catch (RuntimeException e) {
                        left.add(e.getMessage());
                    }
                }));
    }

    private static Result run(Optional<Path> directory, BiConsumer<List<String>, List<String>> closeWhatRuns) {
        // Seen before anything stops: a child that dies first would orphan its own children, out of reach.
        List<ProcessHandle> processes = ProcessHandle.current()
                .descendants()
                .filter(ProcessHandle::isAlive)
                .toList();
        List<String> removed = new ArrayList<>();
        List<String> left = new ArrayList<>();
        closeWhatRuns.accept(removed, left);
        stopAll(processes);
        long stillRunning = processes.stream().filter(ProcessHandle::isAlive).count();
        if (!processes.isEmpty()) {
            removed.add(processes.size() + " processes");
        }
        if (stillRunning > 0) {
            left.add(stillRunning + " processes: "
                    + processes.stream()
                            .filter(ProcessHandle::isAlive)
                            .map(p -> Long.toString(p.pid()))
                            .toList());
        }
        directory.ifPresent(dir -> {
            TempFiles.deleteRecursively(dir);
            if (Files.exists(dir)) {
                left.add("directory " + dir);
            } else {
                removed.add(dir.toString());
            }
        });
        return new Result(List.copyOf(removed), List.copyOf(left));
    }

    private static void close(Sandbox sandbox, List<String> removed, List<String> left) {
        TestNetwork network = sandbox.network;
        // SIGTERM to every speaker at once and one shared grace period: Sandbox.close() would give each its own, one
        // after the other, and after Ctrl-C a speaker's hand-over waits on an API server that is gone.
        List<NamespacedProcess> speakers = network.nodes().stream()
                .map(sandbox::speaker)
                .filter(s -> s != null && s.isAlive())
                .toList();
        speakers.forEach(NamespacedProcess::terminate);
        long deadline = System.nanoTime() + SPEAKER_GRACE.toNanos();
        for (NamespacedProcess speaker : speakers) {
            speaker.waitFor(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        speakers.stream().filter(NamespacedProcess::isAlive).forEach(NamespacedProcess::kill);
        try {
            sandbox.close();
        } catch (RuntimeException e) {
            left.add(e.getMessage());
        }
        List<String> namespaces = Commands.lines("ip", "netns", "list").stream()
                .map(l -> l.split("\\s+")[0])
                .filter(network.namespaces()::contains)
                .toList();
        namespaces.forEach(ns -> left.add("namespace " + ns));
        if (Commands.lines("ip", "-o", "link", "show").stream()
                .anyMatch(l -> l.contains(" " + network.hostInterface() + "@")
                        || l.contains(" " + network.hostInterface() + ":"))) {
            left.add("host interface " + network.hostInterface());
        }
        removed.add(network.namespaces().size() + " namespaces (" + String.join(", ", network.namespaces()) + ")");
        removed.add("host interface " + network.hostInterface());
    }

    /** TERM to all, a shared grace period, then KILL to what is left; by pid, only processes this JVM started. */
    private static void stopAll(List<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (ProcessHandle p : processes) {
            awaitExit(p, Math.max(0, deadline - System.nanoTime()));
        }
        processes.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : processes) {
            awaitExit(p, TimeUnit.SECONDS.toNanos(2));
        }
    }

    private static void awaitExit(ProcessHandle process, long nanos) {
        try {
            process.onExit().get(nanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // still alive: killed next, or reported
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

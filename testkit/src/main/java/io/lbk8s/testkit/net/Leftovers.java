package io.lbk8s.testkit.net;

import io.lbk8s.testkit.TempFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Finds and removes what networks left on the machine, by id; used by close() and removeStale(). */
final class Leftovers {

    private static final Duration PROCESS_EXIT = Duration.ofSeconds(3);

    static final Path FRR_CRASH_LOGS = Path.of("/var/tmp/frr");

    private Leftovers() {}

    /** All test-network namespaces on the machine, of any id. */
    static List<String> allNamespaces() {
        CommandResult result = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "netns", "list"));
        return result.stdout()
                .lines()
                .map(line -> line.strip().split("\\s+")[0])
                .filter(name -> Names.idOfNamespace(name).isPresent())
                .toList();
    }

    /** All host legs on the machine, of any id. */
    static List<String> allHostLegs() {
        CommandResult result = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "-o", "link", "show"));
        // "7: lbk8sab12h@if2: <BROADCAST,..." -> "lbk8sab12h"
        return result.stdout()
                .lines()
                .map(line -> line.split(":\\s+", 3))
                .filter(parts -> parts.length >= 2)
                .map(parts -> parts[1].split("@")[0])
                .filter(name -> Names.idOfHostLeg(name).isPresent())
                .toList();
    }

    static SortedSet<String> allIds() {
        SortedSet<String> ids = new TreeSet<>(Owners.ids());
        allNamespaces().forEach(ns -> Names.idOfNamespace(ns).ifPresent(ids::add));
        allHostLegs().forEach(leg -> Names.idOfHostLeg(leg).ifPresent(ids::add));
        return ids;
    }

    static List<String> namespacesOf(String id) {
        return allNamespaces().stream()
                .filter(ns -> Names.idOfNamespace(ns).orElseThrow().equals(id))
                .toList();
    }

    static Optional<String> hostLegOf(String id) {
        String leg = new Names(id).hostLeg();
        return allHostLegs().contains(leg) ? Optional.of(leg) : Optional.empty();
    }

    static List<Long> pidsIn(String namespace) {
        CommandResult result = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "netns", "pids", namespace));
        return result.stdout()
                .lines()
                .map(String::strip)
                .filter(s -> s.matches("\\d+"))
                .map(Long::parseLong)
                .toList();
    }

    /**
     * Removes everything of one id: kills whatever still runs in its namespaces (a namespace with a
     * process in it outlives `ip netns del`), deletes the host leg, then the namespaces, then the owner
     * file. Returns whether there was anything besides the owner file.
     */
    static boolean remove(String id) throws IOException {
        List<String> namespaces = namespacesOf(id);
        Optional<String> hostLeg = hostLegOf(id);
        for (String namespace : namespaces) {
            killAll(namespace);
        }
        List<String> problems = new ArrayList<>();
        if (hostLeg.isPresent()) {
            CommandResult r = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "link", "del", hostLeg.get()));
            if (!r.ok() && hostLegOf(id).isPresent()) {
                problems.add("ip link del " + hostLeg.get() + ": " + r.stderr().strip());
            }
        }
        // Bridge namespace last (Names.namespaces order is not guaranteed here, so sort explicitly).
        List<String> ordered = new ArrayList<>(namespaces);
        ordered.sort((a, b) -> Boolean.compare(a.endsWith("-br"), b.endsWith("-br")));
        for (String namespace : ordered) {
            CommandResult r = Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "netns", "del", namespace));
            if (!r.ok()) {
                problems.add("ip netns del " + namespace + ": " + r.stderr().strip());
            }
        }
        Owners.delete(id);
        if (!problems.isEmpty()) {
            throw new IOException("could not remove test network " + id + ": " + String.join("; ", problems));
        }
        return !namespaces.isEmpty() || hostLeg.isPresent();
    }

    /** What is still there of an id, for an error message; empty when nothing. */
    static List<String> remaining(String id) {
        List<String> left = new ArrayList<>();
        namespacesOf(id).forEach(ns -> left.add("namespace " + ns));
        hostLegOf(id).ifPresent(leg -> left.add("host interface " + leg));
        return left;
    }

    /** SIGKILL for everything in the namespace: all of it was started by a test network. */
    static void killAll(String namespace) {
        // Listed again after each round: a forking server may have started a child in between.
        long deadline = System.nanoTime() + PROCESS_EXIT.toNanos();
        for (List<Long> pids = pidsIn(namespace);
                !pids.isEmpty() && System.nanoTime() < deadline;
                pids = pidsIn(namespace)) {
            List<Path> crashLogs = pids.stream().flatMap(Leftovers::frrCrashLog).toList();
            pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            sleep(Duration.ofMillis(20));
            crashLogs.forEach(TempFiles::deleteRecursively);
        }
    }

    /**
     * An FRR daemon keeps a crash-log buffer in {@code /var/tmp/frr/<daemon>.<pid>}, outside any namespace; a killed one
     * cannot remove it. Read before the kill, while {@code /proc/<pid>/comm} still names the daemon.
     */
    private static Stream<Path> frrCrashLog(long pid) {
        try {
            String daemon = Files.readString(Path.of("/proc", Long.toString(pid), "comm"))
                    .strip();
            Path crashLog = FRR_CRASH_LOGS.resolve(daemon + "." + pid);
            return Files.isDirectory(crashLog) ? Stream.of(crashLog) : Stream.empty();
        } catch (IOException | RuntimeException gone) {
            return Stream.empty();
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

package io.lbk8s.testkit.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A node's cgroups, in every cgroup v1 hierarchy of the machine: {@code /<name>} holds the node's daemons
 * ({@code /<name>/daemons}) and, as the kubelet's cgroup root, its Pods. Freezing the node's freezer cgroup stops every
 * process of the node at once, Pods included, as a hung machine; killing every process in it ends the node without
 * leaving a container behind.
 */
record Cgroups(String name) {

    private static final Path MOUNTS = Path.of("/proc/self/mountinfo");

    /** The mount points of the cgroup v1 hierarchies (cpu, memory, freezer, ..., name=systemd). */
    static List<Path> hierarchies() {
        try (Stream<String> lines = Files.lines(MOUNTS)) {
            return lines.map(line -> line.split(" "))
                    .filter(fields -> {
                        int separator = List.of(fields).indexOf("-");
                        return separator > 0 && fields[separator + 1].equals("cgroup");
                    })
                    .map(fields -> Path.of(fields[4]))
                    .distinct()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Why nodes cannot run here: the kubelet built here manages cgroup v1 (see docs/decisions/0009). */
    static java.util.Optional<String> missingPrerequisites() {
        List<Path> hierarchies = hierarchies();
        if (hierarchies.stream().noneMatch(h -> h.getFileName().toString().equals("freezer"))) {
            return java.util.Optional.of("no cgroup v1 freezer hierarchy is mounted (found " + hierarchies + ")");
        }
        return java.util.Optional.empty();
    }

    void create() throws IOException {
        for (Path hierarchy : hierarchies()) {
            for (Path group :
                    List.of(hierarchy.resolve(name), hierarchy.resolve(name).resolve("daemons"))) {
                Files.createDirectories(group);
                // A new cpuset has no CPUs and no memory nodes until given its parent's.
                Path cpus = group.resolve("cpuset.cpus");
                if (Files.exists(cpus) && Files.readString(cpus).isBlank()) {
                    Files.writeString(
                            cpus,
                            Files.readString(group.getParent().resolve("cpuset.cpus"))
                                    .strip());
                    Files.writeString(
                            group.resolve("cpuset.mems"),
                            Files.readString(group.getParent().resolve("cpuset.mems"))
                                    .strip());
                }
            }
        }
    }

    /** The kubelet's {@code cgroupRoot}. */
    String root() {
        return "/" + name;
    }

    /** A shell prefix that moves the shell into the daemons' cgroups before it execs the daemon. */
    String enterDaemons() {
        StringBuilder script = new StringBuilder();
        for (Path hierarchy : hierarchies()) {
            script.append("echo $$ > ")
                    .append(hierarchy.resolve(name).resolve("daemons").resolve("cgroup.procs"))
                    .append("; ");
        }
        return script.toString();
    }

    void freeze() throws IOException {
        Files.writeString(freezer().resolve("freezer.state"), "FROZEN");
    }

    void thaw() throws IOException {
        Files.writeString(freezer().resolve("freezer.state"), "THAWED");
    }

    /** Every process of the node, containers included. */
    List<Long> processes() throws IOException {
        if (!Files.isDirectory(freezer())) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> groups = Files.walk(freezer())) {
            for (Path procs : groups.filter(p -> p.getFileName().toString().equals("cgroup.procs"))
                    .toList()) {
                try {
                    Files.readAllLines(procs).stream()
                            .filter(l -> !l.isBlank())
                            .map(Long::parseLong)
                            .forEach(pids::add);
                } catch (IOException gone) {
                    // removed while walking
                }
            }
        }
        return pids;
    }

    /** SIGKILL to every process of the node (thawed first: a frozen process cannot die). */
    void killAll() throws IOException {
        if (!Files.isDirectory(freezer())) {
            return;
        }
        thaw();
        for (int round = 0; round < 50; round++) {
            List<Long> pids = processes();
            if (pids.isEmpty()) {
                return;
            }
            pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            sleep(100);
        }
        throw new IOException("processes of " + name + " outlived SIGKILL: " + processes());
    }

    /** Removes the node's cgroups in every hierarchy, deepest first; call after {@link #killAll()}. */
    void remove() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path hierarchy : hierarchies()) {
            Path top = hierarchy.resolve(name);
            if (!Files.isDirectory(top)) {
                continue;
            }
            List<Path> groups;
            try (Stream<Path> walk = Files.walk(top)) {
                groups = walk.filter(Files::isDirectory)
                        .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
                        .toList();
            }
            for (Path group : groups) {
                if (!removeGroup(group)) {
                    problems.add(group.toString());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IOException("could not remove cgroups " + problems);
        }
    }

    /** rmdir, retried briefly: a cgroup whose last process just died may still count it for a moment. */
    private static boolean removeGroup(Path group) {
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                Files.deleteIfExists(group);
                return true;
            } catch (IOException busy) {
                sleep(50);
            }
        }
        return false;
    }

    private Path freezer() {
        return hierarchies().stream()
                .filter(h -> h.getFileName().toString().equals("freezer"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no freezer cgroup hierarchy"))
                .resolve(name);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

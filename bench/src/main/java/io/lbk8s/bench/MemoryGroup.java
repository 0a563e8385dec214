package io.lbk8s.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A memory cgroup limited as a Pod's container is, so that the JVM's container detection sizes its heap as in the Pod
 * and the kernel kills the process when it goes over, as the kubelet's cgroup would. cgroup v2 where the memory
 * controller is in the unified hierarchy, else v1's memory hierarchy. Needs root. A process joins it by writing its
 * own pid to {@link #procs()} before it execs the JVM.
 */
record MemoryGroup(Path dir, String version, long limitBytes) implements AutoCloseable {
    private static final Path ROOT = Path.of("/sys/fs/cgroup");

    /** The group {@code name} with {@code limitBytes}; empty when no memory cgroup can be made here (say why on stderr). */
    static Optional<MemoryGroup> create(String name, long limitBytes) {
        try {
            if (Files.isReadable(ROOT.resolve("cgroup.controllers"))) {
                if (!Files.readString(ROOT.resolve("cgroup.controllers")).contains("memory")) {
                    System.err.println("MemoryGroup: cgroup v2 without the memory controller");
                    return Optional.empty();
                }
                if (!Files.readString(ROOT.resolve("cgroup.subtree_control")).contains("memory")) {
                    Files.writeString(ROOT.resolve("cgroup.subtree_control"), "+memory");
                }
                Path dir = Files.createDirectories(ROOT.resolve(name));
                Files.writeString(dir.resolve("memory.max"), Long.toString(limitBytes));
                Files.writeString(dir.resolve("memory.swap.max"), "0"); // a Pod has no swap
                return Optional.of(new MemoryGroup(dir, "cgroup v2", limitBytes));
            }
            Path v1 = ROOT.resolve("memory");
            if (Files.isDirectory(v1)) {
                Path dir = Files.createDirectories(v1.resolve(name));
                Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
                return Optional.of(new MemoryGroup(dir, "cgroup v1", limitBytes));
            }
            System.err.println("MemoryGroup: no memory cgroup hierarchy under " + ROOT);
        } catch (IOException | RuntimeException e) {
            System.err.println("MemoryGroup: cannot make a memory cgroup here: " + e);
        }
        return Optional.empty();
    }

    Path procs() {
        return dir.resolve("cgroup.procs");
    }

    /**
     * Shell lines that make a process join the group. In a mount namespace of its own without the cgroup file systems
     * ({@code ip netns exec} mounts a fresh /sys), they first mount those this host has where it has them, as a
     * container sees its own: the JVM finds its limit through them.
     */
    String joinScript() throws IOException {
        StringBuilder mounts = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] fields = line.split(" ");
            int dash = List.of(fields).indexOf("-");
            String mountPoint = fields[4];
            if (dash < 0 || !(mountPoint + "/").startsWith(ROOT + "/")) {
                continue;
            }
            String type = fields[dash + 1];
            String options = String.join(
                    ",",
                    List.of(fields[dash + 3].split(",")).stream()
                            .filter(o -> !o.equals("rw") && !o.equals("ro"))
                            .toList());
            switch (type) {
                case "tmpfs" ->
                    mounts.append("  mount -t tmpfs -o mode=755 tmpfs ")
                            .append(mountPoint)
                            .append(" &&\n");
                case "cgroup" ->
                    mounts.append("  mkdir -p ")
                            .append(mountPoint)
                            .append(" && mount -t cgroup -o ")
                            .append(options.startsWith("name=") ? "none," + options : options)
                            .append(" cgroup ")
                            .append(mountPoint)
                            .append(" &&\n");
                case "cgroup2" ->
                    mounts.append("  mkdir -p ")
                            .append(mountPoint)
                            .append(" && mount -t cgroup2 none ")
                            .append(mountPoint)
                            .append(" &&\n");
                default -> {}
            }
        }
        return "if [ ! -e '" + procs() + "' ]; then\n" + mounts + "  true || exit 125\nfi\n" + "echo $$ > '" + procs()
                + "' || exit 125\n";
    }

    /** The group's charged memory now (what the limit is compared with: RSS plus page cache and kernel memory). */
    long usageBytes() throws IOException {
        return read(version.equals("cgroup v2") ? "memory.current" : "memory.usage_in_bytes");
    }

    /** Times the kernel's OOM killer killed a process of the group (0 where the kernel does not say). */
    long oomKills() throws IOException {
        String file = version.equals("cgroup v2") ? "memory.events" : "memory.oom_control";
        if (!Files.exists(dir.resolve(file))) {
            return 0;
        }
        return Files.readAllLines(dir.resolve(file)).stream()
                .filter(l -> l.startsWith("oom_kill "))
                .mapToLong(l -> Long.parseLong(l.substring("oom_kill ".length()).strip()))
                .findFirst()
                .orElse(0);
    }

    private long read(String file) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve(file)).strip());
    }

    /** Removes the group (the kernel refuses while a process is still in it: then it stays, and says so). */
    @Override
    public void close() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                Files.delete(dir);
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        System.err.println("MemoryGroup: could not remove " + dir + " (a process still in it?)");
    }
}

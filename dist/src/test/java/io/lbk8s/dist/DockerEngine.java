package io.lbk8s.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Docker engine of the test's own: dockerd in a network namespace made for it (nothing but loopback), with its
 * data, exec root, pid file, key and socket in a temp dir, no bridge and no iptables rules, so that it touches
 * nothing of the host's network. Started with nsenter (under "ip netns exec", which remounts /sys, the cgroup
 * mounts are hidden and dockerd fails). close() removes all of it, also after a failed start.
 */
final class DockerEngine implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(60);

    final String netns =
            "lbk8simg-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    final Path dir;
    final Path socket;
    private final Path log;
    private Process dockerd;
    private boolean netnsMade;

    private DockerEngine(Path dir) {
        this.dir = dir;
        this.socket = dir.resolve("docker.sock");
        this.log = dir.resolve("dockerd.log");
    }

    /** Starts the engine and waits (bounded) until it answers; on failure, tears down and reports dockerd's log. */
    static DockerEngine start() throws IOException {
        // a short path: the socket's must fit in sun_path (108 bytes)
        var engine = new DockerEngine(Files.createTempDirectory(Path.of("/tmp"), "lbk8simg-"));
        try {
            engine.startDaemon();
            return engine;
        } catch (Throwable e) {
            String logText = engine.logTail();
            engine.close();
            throw new AssertionError(
                    "the test's Docker engine did not start: " + e.getMessage() + "\n--- dockerd log ---\n" + logText,
                    e);
        }
    }

    private void startDaemon() throws IOException, InterruptedException {
        Cmd.run(Duration.ofSeconds(20), List.of("ip", "netns", "add", netns)).ok();
        netnsMade = true;
        Cmd.run(Duration.ofSeconds(20), List.of("ip", "-n", netns, "link", "set", "lo", "up"))
                .ok();
        Path config = dir.resolve("daemon.json");
        // dockerd before 23 writes its identity key to /etc/docker/key.json unless told otherwise (later ones have none
        // and refuse the setting)
        Files.writeString(
                config,
                dockerdMajor() < 23 ? "{\"deprecated-key-path\": \"" + dir.resolve("key.json") + "\"}\n" : "{}\n");
        dockerd = new ProcessBuilder(
                        "nsenter",
                        "--net=/var/run/netns/" + netns,
                        "dockerd",
                        "--config-file",
                        config.toString(),
                        "--data-root",
                        dir.resolve("data").toString(),
                        "--exec-root",
                        dir.resolve("exec").toString(),
                        "--pidfile",
                        dir.resolve("dockerd.pid").toString(),
                        "-H",
                        "unix://" + socket,
                        "--bridge=none",
                        "--iptables=false",
                        "--ip6tables=false",
                        "--ip-forward=false",
                        "--ip-masq=false")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + START.toNanos();
        String last = "no socket yet";
        while (System.nanoTime() < deadline) {
            if (!dockerd.isAlive()) {
                throw new IllegalStateException("dockerd exited with " + dockerd.exitValue());
            }
            if (Files.exists(socket)) {
                Cmd version = docker(Duration.ofSeconds(10), "version", "--format", "{{.Server.Version}}");
                if (version.exit() == 0) {
                    return;
                }
                last = version.err().strip();
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("no answer within " + START + " (" + last + ")");
    }

    /** "Docker version 20.10.24+dfsg1, build 5d6db84" gives 20. */
    private static int dockerdMajor() {
        Cmd version =
                Cmd.run(Duration.ofSeconds(20), List.of("dockerd", "--version")).ok();
        var m = java.util.regex.Pattern.compile("version (\\d+)\\.").matcher(version.out());
        if (!m.find()) {
            throw new IllegalStateException("cannot read dockerd's version from: " + version.out());
        }
        return Integer.parseInt(m.group(1));
    }

    Cmd docker(Duration timeout, String... args) {
        var command = new ArrayList<>(List.of("docker", "-H", "unix://" + socket));
        command.addAll(List.of(args));
        return Cmd.run(
                timeout,
                Map.of(
                        "PATH",
                        System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                        "DOCKER_CONFIG",
                        dir.resolve("client").toString()),
                command);
    }

    String logTail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of("(no log)");
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** dockerd (by its pid) and its containerd, mounts under the temp dir, the network namespace, the temp dir. */
    @Override
    public void close() {
        if (dockerd != null) {
            dockerd.destroy();
            try {
                if (!dockerd.waitFor(30, TimeUnit.SECONDS)) {
                    dockerd.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        killByPidFile(dir.resolve("exec/containerd/containerd.pid"));
        unmountUnder(dir);
        if (netnsMade) {
            Cmd.run(Duration.ofSeconds(20), List.of("ip", "netns", "del", netns));
        }
        deleteTree(dir);
    }

    private static void killByPidFile(Path pidFile) {
        try {
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(Files.readString(pidFile).strip());
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroy();
                    try {
                        p.onExit().get(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        p.destroyForcibly();
                    }
                });
            }
        } catch (IOException | NumberFormatException e) {
            // nothing to stop
        }
    }

    private static void unmountUnder(Path dir) {
        try {
            List<String> points = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String point = line.split(" ")[1];
                if (point.startsWith(dir.toString() + "/")) {
                    points.add(point);
                }
            }
            points.sort(Comparator.comparingInt(String::length).reversed());
            for (String point : points) {
                Cmd.run(Duration.ofSeconds(20), List.of("umount", "-l", point));
            }
        } catch (IOException e) {
            // nothing mounted that we can see
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // reported below if the tree stays
                }
            });
        } catch (IOException ignored) {
            // gone already
        }
        if (Files.exists(dir)) {
            System.err.println("[DockerEngine] could not remove " + dir);
        }
    }
}

package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.kube.Informers;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the time from "Service created" to "route in the router's FIB" goes, from what each party writes down with its
 * own clock (all on this machine's wall clock): tcpdump on the test API server's leg when it sent the Service's ADDED
 * watch event and the first event with the controller's status.loadBalancer.ingress, each speaker's debug log when it
 * handed the route to its BGP session, tcpdump in the router's namespace when the UPDATE arrived, FRR's bgpd log (debug bgp zebra) when bgpd gave the route to zebra,
 * and {@code ip -ts monitor route} when the kernel table had it. The tools run beside what they watch (a few
 * processes more on the same CPUs), their outputs read afterwards.
 */
final class BgpPhases implements AutoCloseable {
    /**
     * A role's launcher as its Pod runs it: the distribution's {@code bin/lbk8s} (the image's runtime, JVM flags and AOT
     * cache, which {@code -XX:AOTMode=on} makes sure is used), the manifests' {@code JDK_JAVA_OPTIONS}, and the
     * manifest's memory limit emulated with {@code -XX:MaxRAM} (no memory cgroup here), so that the JVM sizes its
     * heap as in its Pod. {@code debug}: with LOG_LEVEL=DEBUG, for BgpAdvertiser's line per route change.
     */
    static Path launcher(Path directory, Path dist, String role, boolean debug) throws IOException {
        return launcher(
                directory,
                dist,
                role,
                debug,
                DeployedRolesBenchmark.Deployed.of(role).limitBytes());
    }

    /** As {@link #launcher(Path, Path, String, boolean)}, with a memory limit of {@code limitBytes} instead. */
    static Path launcher(Path directory, Path dist, String role, boolean debug, long limitBytes) throws IOException {
        var deployed = DeployedRolesBenchmark.Deployed.of(role);
        Path launcher = directory.resolve(role + "-launcher");
        Files.writeString(
                launcher,
                "#!/bin/sh\nunset JAVA_TOOL_OPTIONS MALLOC_ARENA_MAX\n"
                        + (debug ? "export LOG_LEVEL=DEBUG\n" : "")
                        + "export JDK_JAVA_OPTIONS='" + deployed.jdkJavaOptions() + "'\n"
                        + "export JAVA_OPTS='-XX:AOTMode=on -XX:MaxRAM=" + limitBytes + extraJavaOpts() + "'\n"
                        + "exec '" + dist.resolve("bin/lbk8s") + "' \"$@\"\n");
        if (!launcher.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + launcher + " executable");
        }
        return launcher;
    }

    /** {@code -Dbench.javaOpts=...}: flags added to every role's, e.g. a GC log to see where a figure's time went. */
    private static String extraJavaOpts() {
        String extra = System.getProperty("bench.javaOpts", "").strip();
        return extra.isEmpty() ? "" : " " + extra;
    }

    /** How {@link #launcher} runs the roles, for the rows. */
    static String howLaunched() {
        var speaker = DeployedRolesBenchmark.Deployed.of("speaker");
        return "roles run as deployed: the distribution's runtime, flags and AOT cache, JDK_JAVA_OPTIONS "
                + speaker.jdkJavaOptions() + ", memory limit " + speaker.limitBytes() / 1024 / 1024
                + " MiB emulated with -XX:MaxRAM; speakers with LOG_LEVEL=DEBUG";
    }

    private static final Pattern MONITOR = Pattern.compile("^\\[(\\S+)\\]\\s+(?:Deleted\\s+)?(\\S+)");
    private static final Pattern PACKET = Pattern.compile("^(\\d+\\.\\d{6}) IP ");
    private static final Pattern PREFIX = Pattern.compile("^\\s+(\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+)\\s*$");
    private static final Pattern ZEBRA_ADD =
            Pattern.compile("^(\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d+) BGP: .*Tx route add VRF \\d+ (\\S+)");
    private static final Pattern ADVERTISED =
            Pattern.compile("^(\\S+) level=DEBUG logger=BgpAdvertiser.* msg=\".*? new \\[([^\\]]*)\\]");
    private static final DateTimeFormatter FRR_TIME = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSSSSS");

    private final Sandbox sandbox;
    private final UpstreamRouter router;
    private final NamespacedProcess monitor;
    private final NamespacedProcess tcpdump;
    private final Process apiCapture;
    private final Path apiLog;
    private final SharedIndexInformer<Service> services;
    private final Map<String, Long> created = new ConcurrentHashMap<>();
    private final Map<String, Long> statusSeen = new ConcurrentHashMap<>();
    private final Map<String, Long> benchSaw = new ConcurrentHashMap<>();
    private final Map<String, String> prefixOf = new ConcurrentHashMap<>();

    private BgpPhases(
            Sandbox sandbox,
            UpstreamRouter router,
            NamespacedProcess monitor,
            NamespacedProcess tcpdump,
            Process apiCapture,
            Path apiLog) {
        this.sandbox = sandbox;
        this.router = router;
        this.monitor = monitor;
        this.tcpdump = tcpdump;
        this.apiCapture = apiCapture;
        this.apiLog = apiLog;
        this.services = sandbox.client.services().inNamespace("default").inform(Informers.onAnyChange(s -> {
            long now = Sandbox.nowMicros();
            var status = s.getStatus();
            if (status != null
                    && status.getLoadBalancer() != null
                    && status.getLoadBalancer().getIngress() != null
                    && !status.getLoadBalancer().getIngress().isEmpty()) {
                statusSeen.putIfAbsent(s.getMetadata().getName(), now);
            }
        }));
    }

    /** Starts the router-side recorders and FRR's debug logging; FRR must be running. */
    static BgpPhases start(Sandbox sandbox, FrrRouter frr) throws IOException {
        TestNetwork network = sandbox.network;
        UpstreamRouter router = network.router();
        Path logs = sandbox.logs;
        frr.vtysh("configure terminal", "log timestamp precision 6");
        frr.vtysh("debug bgp zebra");
        NamespacedProcess monitor =
                network.start(router.namespace(), List.of("ip", "-ts", "monitor", "route"), logs.resolve("monitor"));
        NamespacedProcess tcpdump = network.start(
                router.namespace(),
                List.of("tcpdump", "-l", "-tt", "-n", "-v", "-i", "eth0", "--immediate-mode", "tcp port 179"),
                logs.resolve("tcpdump"));
        tcpdump.awaitLogLine("listening on", java.time.Duration.ofSeconds(10));
        // the test API server speaks plain HTTP on the network's host address: its requests and watch events, stamped
        java.net.NetworkInterface leg = java.net.NetworkInterface.getByInetAddress(network.hostAddress());
        Path apiLog = logs.resolve("api-tcpdump");
        Process apiCapture = new ProcessBuilder(
                        "tcpdump",
                        "-l",
                        "-tt",
                        "-n",
                        "-A",
                        "-s",
                        "0",
                        "--immediate-mode",
                        "-i",
                        leg.getName(),
                        "tcp port " + sandbox.client.getMasterUrl().getPort())
                .redirectErrorStream(true)
                .redirectOutput(apiLog.toFile())
                .start();
        awaitListening(apiCapture, apiLog);
        return new BgpPhases(sandbox, router, monitor, tcpdump, apiCapture, apiLog);
    }

    private static void awaitListening(Process capture, Path log) throws IOException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (!read(log).contains("listening on")) {
            if (!capture.isAlive() || System.nanoTime() > deadline) {
                capture.destroy();
                throw new IOException("tcpdump on the test API server's leg did not start: " + read(log));
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
        }
    }

    void created(String service, String prefix, long micros) {
        created.put(service, micros);
        prefixOf.put(service, prefix);
    }

    void benchSaw(String service, long micros) {
        benchSaw.put(service, micros);
    }

    /** When the router's kernel table first had {@code prefix}, as {@code ip -ts monitor} says, waiting that long. */
    Optional<Long> kernelAdded(String prefix, java.time.Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Long at = firstByKey(monitor.log(), BgpPhases::monitorLine).get(prefix);
            if (at != null || System.nanoTime() > deadline) {
                return Optional.ofNullable(at);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
        }
    }

    /** How many changes of {@code prefix}'s routes {@code ip monitor} has reported: a reading of a file, no process. */
    long changesOf(String prefix) {
        String address = "] " + prefix.substring(0, prefix.indexOf('/')) + " ";
        return monitor.log().lines().filter(l -> l.contains(address)).count();
    }

    /** Each phase by name, in order: when it happened for a Service (by name), if it was seen. */
    private Map<String, Function<String, Long>> phases() {
        Map<String, Long> update = new HashMap<>();
        String packetTime = null;
        for (String line : tcpdump.log().lines().toList()) {
            Matcher packet = PACKET.matcher(line);
            if (packet.find()) {
                packetTime = packet.group(1);
                continue;
            }
            Matcher prefix = PREFIX.matcher(line);
            if (prefix.find() && packetTime != null) {
                update.putIfAbsent(prefix.group(1), epochMicros(packetTime));
            }
        }
        Map<String, Long> zebra = new HashMap<>();
        for (Path log : ((FrrRouter) router.running().orElseThrow()).logs()) {
            zebra.putAll(firstByKey(read(log), BgpPhases::zebraLine));
        }
        Map<String, Long> firstSpeaker = new HashMap<>();
        Map<String, Long> lastSpeaker = new HashMap<>();
        for (TestNode node : sandbox.network.nodes()) {
            firstByKeys(read(sandbox.logs.resolve("speaker-" + node.name() + ".log")))
                    .forEach((prefix, at) -> {
                        firstSpeaker.merge(prefix, at, Math::min);
                        lastSpeaker.merge(prefix, at, Math::max);
                    });
        }
        Map<String, Long> kernel = firstByKey(monitor.log(), BgpPhases::monitorLine);
        ApiTimes api = apiTimes(read(apiLog));
        Map<String, Function<String, Long>> phases = new LinkedHashMap<>();
        phases.put("the ingress the controller wrote, seen by the benchmark's watch", statusSeen::get);
        phases.put("the test API server sends its ADDED watch event (tcpdump)", api.added()::get);
        phases.put("it sends the first watch event with the controller's ingress", api.announced()::get);
        phases.put("first speaker hands the route to its session", p -> firstSpeaker.get(prefixOf.get(p)));
        phases.put("last of the 3 speakers does", p -> lastSpeaker.get(prefixOf.get(p)));
        phases.put("first UPDATE for it on the router's wire (tcpdump)", p -> update.get(prefixOf.get(p)));
        phases.put("FRR's bgpd hands it to zebra (debug bgp zebra)", p -> zebra.get(prefixOf.get(p)));
        phases.put("in the router's kernel table (ip -ts monitor route)", p -> kernel.get(prefixOf.get(p)));
        phases.put("the benchmark's check sees it", benchSaw::get);
        return phases;
    }

    /** One Service's phases: each one's milliseconds after the create call, in the rows' order ("-": not seen). */
    String timeline(String service) {
        return timeline(service, phases());
    }

    private String timeline(String service, Map<String, Function<String, Long>> phases) {
        return phases.values().stream()
                        .map(phase -> Optional.ofNullable(phase.apply(service))
                                .map(at -> String.valueOf((at - created.get(service)) / 1000))
                                .orElse("-"))
                        .collect(java.util.stream.Collectors.joining(" / "))
                + " ms";
    }

    /** The rows: each phase's time after the create call, p50 / p99 / max over the Services, and each step's share. */
    List<String[]> rows() {
        Map<String, Function<String, Long>> phases = phases();
        created.entrySet().stream()
                .sorted(Map.Entry.comparingByValue())
                .forEach(service -> System.err.println(service.getKey() + ": " + timeline(service.getKey(), phases)));
        List<String[]> rows = new ArrayList<>();
        for (var phase : phases.entrySet()) {
            List<Long> after = new ArrayList<>();
            int missing = 0;
            for (String service : created.keySet()) {
                Long at = phase.getValue().apply(service);
                if (at == null) {
                    missing++;
                } else {
                    after.add(at - created.get(service));
                }
            }
            String value = after.isEmpty() ? "not seen" : ConflictBenchmark.percentiles(after);
            rows.add(new String[] {
                "phase: Service created -> " + phase.getKey() + ", p50 / p99 / max",
                value + (missing > 0 ? " (" + missing + " not seen)" : "")
            });
        }
        // each step alone (the benchmark's watch left out: it hears of the ingress after the speakers do)
        List<String> names = List.copyOf(phases.keySet());
        Function<String, Long> from = created::get;
        String fromName = "Service created";
        for (String name : names.subList(1, names.size())) {
            Function<String, Long> to = phases.get(name);
            List<Long> took = new ArrayList<>();
            for (String service : created.keySet()) {
                Long a = from.apply(service);
                Long b = to.apply(service);
                if (a != null && b != null) {
                    took.add(b - a);
                }
            }
            if (!took.isEmpty() && !name.startsWith("last")) {
                rows.add(new String[] {
                    "step: " + fromName + " -> " + name + ", p50 / p99 / max", ConflictBenchmark.percentiles(took)
                });
                from = to;
                fromName = name;
            }
        }
        return rows;
    }

    /**
     * When the test API server first sent each Service's ADDED watch event (the create done), and its first MODIFIED
     * event with the ingress (the controller's status PATCH done). Its clients speak HTTP/2, whose requests tcpdump
     * cannot show as text; the watch events' JSON it can.
     */
    private record ApiTimes(Map<String, Long> added, Map<String, Long> announced) {}

    private static final Pattern ADDED_EVENT =
            Pattern.compile("\\{\"type\":\"ADDED\",\"object\":\\{\"apiVersion\":\"v1\",\"kind\":\"Service\""
                    + ".*?\"name\":\"(bgp-\\d+)\"");
    private static final Pattern INGRESS_EVENT =
            Pattern.compile("\\{\"type\":\"MODIFIED\",\"object\":\\{\"apiVersion\":\"v1\",\"kind\":\"Service\""
                    + ".*?\"name\":\"(bgp-\\d+)\".*\"ingress\":\\[\\{");

    private static ApiTimes apiTimes(String capture) {
        ApiTimes times = new ApiTimes(new HashMap<>(), new HashMap<>());
        Long at = null;
        for (String line : capture.lines().toList()) {
            Matcher packet = PACKET.matcher(line);
            if (packet.find()) {
                at = epochMicros(packet.group(1));
            } else if (at != null) {
                Matcher added = ADDED_EVENT.matcher(line);
                if (added.find()) {
                    times.added().putIfAbsent(added.group(1), at);
                }
                Matcher event = INGRESS_EVENT.matcher(line);
                if (event.find()) {
                    times.announced().putIfAbsent(event.group(1), at);
                }
            }
        }
        return times;
    }

    /** The speakers' work queues so far: reconciles, and the seconds they waited and worked, summed over nodes. */
    double[] speakerQueues() {
        double[] sums = new double[3];
        for (TestNode node : sandbox.network.nodes()) {
            add(sums, sandbox.metrics(node).orElse(""), "speaker");
        }
        return sums;
    }

    /** The controller's work queue so far, as {@link #speakerQueues}. */
    double[] controllerQueue() {
        double[] sums = new double[3];
        add(sums, sandbox.controllerMetrics().orElse(""), "controller");
        return sums;
    }

    private static void add(double[] sums, String metrics, String queue) {
        sums[0] += metric(metrics, "lbk8s_workqueue_work_duration_seconds_count", queue);
        sums[1] += metric(metrics, "lbk8s_workqueue_queue_duration_seconds_sum", queue);
        sums[2] += metric(metrics, "lbk8s_workqueue_work_duration_seconds_sum", queue);
    }

    private static double metric(String text, String name, String queue) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*name=\"" + queue + "\"[^}]*\\} (\\S+)")
                .matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static Map<String, Long> firstByKey(
            String text, Function<String, Optional<Map.Entry<String, Long>>> parse) {
        Map<String, Long> first = new HashMap<>();
        text.lines().forEach(line -> parse.apply(line).ifPresent(e -> first.putIfAbsent(e.getKey(), e.getValue())));
        return first;
    }

    /** A speaker's BgpAdvertiser lines: each prefix it first handed to a session, and when. */
    private static Map<String, Long> firstByKeys(String text) {
        Map<String, Long> first = new HashMap<>();
        text.lines().forEach(line -> {
            Matcher m = ADVERTISED.matcher(line);
            if (m.find()) {
                long at = OffsetDateTime.parse(m.group(1)).toInstant().toEpochMilli() * 1000;
                for (String prefix : m.group(2).split(",\\s*")) {
                    if (!prefix.isBlank()) {
                        first.putIfAbsent(prefix.strip(), at);
                    }
                }
            }
        });
        return first;
    }

    private static Optional<Map.Entry<String, Long>> monitorLine(String line) {
        Matcher m = MONITOR.matcher(line);
        if (!m.find() || line.contains("Deleted")) {
            return Optional.empty();
        }
        String prefix = m.group(2).contains("/") ? m.group(2) : m.group(2) + "/32";
        long at = micros(LocalDateTime.parse(m.group(1)));
        return Optional.of(Map.entry(prefix, at));
    }

    private static Optional<Map.Entry<String, Long>> zebraLine(String line) {
        Matcher m = ZEBRA_ADD.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(Map.entry(m.group(2), micros(LocalDateTime.parse(m.group(1), FRR_TIME))));
    }

    private static long micros(LocalDateTime local) {
        Instant at = local.atZone(ZoneId.systemDefault()).toInstant();
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1000;
    }

    private static long epochMicros(String secondsDotMicros) {
        String[] parts = secondsDotMicros.split("\\.");
        return Long.parseLong(parts[0]) * 1_000_000 + Long.parseLong(parts[1]);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        apiCapture.destroy();
        services.close();
        monitor.stop(java.time.Duration.ofSeconds(2));
        tcpdump.stop(java.time.Duration.ofSeconds(2));
    }
}

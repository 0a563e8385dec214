package io.lbk8s.bench.detector;

import io.lbk8s.bench.detector.JGroupsCluster.MemberCommand;
import io.lbk8s.bench.detector.JGroupsCluster.Setting;
import io.lbk8s.bench.detector.JGroupsCluster.Traffic;
import io.lbk8s.bench.detector.JGroupsCluster.View;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import org.jgroups.JChannel;

/**
 * JGroups as the speakers' failure detector, on the namespace network (not a test; prints markdown table rows):
 * <ul>
 * <li>detection: a node frozen (SIGSTOP) with its link down at the same instant, or its link down alone → time until
 * every survivor installed a view without it, at 3 nodes (and 10), for two FD_ALL3/VERIFY_SUSPECT2 settings;</li>
 * <li>false detections: 3 healthy members with {@code stress-ng --cpu 4} (200 % oversubscription of 2 vCPUs), at
 * normal priority and under {@code chrt -f 10};</li>
 * <li>traffic: bytes and packets per second per node, steady state, at 3 and 10 nodes.</li>
 * </ul>
 * Usage: {@code JGroupsDetectorBench [--quick] [--trials N] [--trials-at-10 N] [--load-minutes M] [--transport tcp|udp]
 * [--fd-sock2] [--transport-attributes NAME=VALUE,...] [--only detection,traffic,load] [--settings 50/200/100,100/400/200]
 * [--member-logback FILE]}; a setting is FD_ALL3 interval / FD_ALL3 timeout / VERIFY_SUSPECT2 timeout in ms; transport
 * attributes are added to the TCP or UDP element (e.g. {@code non_blocking_sends=true}). Needs root; the members' logs stay in a temporary
 * directory.
 */
public final class JGroupsDetectorBench {

    private static final Duration DETECTION_LIMIT = Duration.ofSeconds(10);
    private static final Duration RESTORE_LIMIT = Duration.ofSeconds(60);
    private static final Duration SETTLE = Duration.ofSeconds(1);
    private static final Duration LOAD_SAMPLE = Duration.ofSeconds(10);
    private static final int STRESS_WORKERS = 4;

    enum Failure {
        FROZEN_AND_LINK_DOWN("frozen + link down"),
        LINK_DOWN("link down");

        final String label;

        Failure(String label) {
            this.label = label;
        }
    }

    record Options(
            int trials,
            int trialsAtTen,
            Duration load,
            Duration trafficWindow,
            String transport,
            boolean fdSock2,
            String transportAttributes,
            Set<String> parts,
            List<Setting> settings,
            String memberLogback) {

        /** {@link JGroupsMember}'s options beyond the setting. */
        List<String> memberOptions() {
            List<String> memberOptions = new ArrayList<>();
            if (fdSock2) {
                memberOptions.add("--fd-sock2");
            }
            if (!transportAttributes.isEmpty()) {
                memberOptions.add("--transport-attributes=" + transportAttributes);
            }
            return memberOptions;
        }

        static Options parse(String[] args) {
            boolean quick = Arrays.asList(args).contains("--quick");
            Map<String, String> values = new HashMap<>();
            Set<String> flags = Set.of("--quick", "--fd-sock2");
            Set<String> options = Set.of(
                    "--trials",
                    "--trials-at-10",
                    "--load-minutes",
                    "--transport",
                    "--transport-attributes",
                    "--only",
                    "--settings",
                    "--member-logback");
            for (int i = 0; i < args.length; i++) {
                if (options.contains(args[i]) && i + 1 < args.length) {
                    values.put(args[i], args[++i]);
                } else if (!flags.contains(args[i])) {
                    throw new IllegalArgumentException(
                            "unknown option or missing value: " + args[i] + "; options: " + flags + " " + options);
                }
            }
            double loadMinutes = Double.parseDouble(values.getOrDefault("--load-minutes", quick ? "1" : "10"));
            return new Options(
                    Integer.parseInt(values.getOrDefault("--trials", quick ? "4" : "20")),
                    Integer.parseInt(values.getOrDefault("--trials-at-10", quick ? "0" : "10")),
                    Duration.ofSeconds(Math.round(loadMinutes * 60)),
                    Duration.ofSeconds(quick ? 10 : 30),
                    values.getOrDefault("--transport", "tcp"),
                    Arrays.asList(args).contains("--fd-sock2"),
                    values.getOrDefault("--transport-attributes", ""),
                    Set.of(values.getOrDefault("--only", "detection,traffic,load")
                            .split(",")),
                    Arrays.stream(values.getOrDefault("--settings", "50/200/100,100/400/200")
                                    .split(","))
                            .map(Setting::parse)
                            .toList(),
                    values.getOrDefault("--member-logback", "bench-logback.xml"));
        }
    }

    /**
     * One failure. {@code micros}: from the failure to the last survivor's first view without the node (empty if some
     * survivor had none within the limit); {@code spreadMicros}: from the first survivor's such view to the last's;
     * {@code linkDownMicros}: from the failure until {@code ip link set eth0 down} returned; {@code survivorsExcluded}:
     * views the survivors installed from the failure until settled again that lacked a survivor.
     */
    record Trial(
            long failedAtMicros,
            String victim,
            boolean coordinatorFailed,
            Optional<Long> micros,
            long spreadMicros,
            long linkDownMicros,
            int survivorsExcluded,
            long restoreMillis,
            boolean restarted) {}

    private final Options options;
    private final Path logs;
    private final String detector;
    private final List<String> memberJava;
    private final Random random = new Random(42);

    private JGroupsDetectorBench(Options options, Path logs) {
        this.options = options;
        this.logs = logs;
        this.detector = "JGroups " + JChannel.class.getPackage().getImplementationVersion() + " "
                + options.transport().toUpperCase(Locale.ROOT)
                + (options.transportAttributes().isEmpty() ? "" : " (" + options.transportAttributes() + ")")
                + (options.fdSock2() ? " + FD_SOCK2" : "");
        this.memberJava = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Xmx64m",
                "-Djava.net.preferIPv4Stack=true",
                "-Dlogback.configurationFile=" + options.memberLogback(),
                "-cp",
                System.getProperty("java.class.path"));
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            System.out.println("| JGroups | failure detection | not measured: " + missing.get() + " |");
            return;
        }
        Path logs = Files.createTempDirectory("lbk8s-detector-bench");
        JGroupsDetectorBench bench = new JGroupsDetectorBench(options, logs);
        System.err.println("detector bench: logs in " + logs + "; " + options);
        bench.run();
        System.err.println("detector bench: done; logs in " + logs);
    }

    private void run() throws IOException {
        try (TestNetwork network = TestNetwork.create(3, logs.resolve("network-3"))) {
            if (options.parts().contains("detection")) {
                for (Setting setting : options.settings()) {
                    detection(network, setting, options.trials());
                }
            }
            if (options.parts().contains("traffic")) {
                for (Setting setting : options.settings()) {
                    traffic(network, setting);
                }
            }
            if (options.parts().contains("load")) {
                for (Setting setting : options.settings()) {
                    falseDetections(network, setting, false);
                    falseDetections(network, setting, true);
                }
            }
        }
        boolean atTen = options.parts().contains("traffic")
                || options.parts().contains("detection") && options.trialsAtTen() > 0;
        if (atTen) {
            try (TestNetwork network = TestNetwork.create(10, logs.resolve("network-10"))) {
                if (options.parts().contains("traffic")) {
                    for (Setting setting : options.settings()) {
                        traffic(network, setting);
                    }
                }
                if (options.parts().contains("detection") && options.trialsAtTen() > 0) {
                    detection(network, options.settings().getFirst(), options.trialsAtTen());
                }
            }
        }
    }

    // ---- detection -------------------------------------------------------------------------------------------------

    /** {@code trials} failures of each kind, interleaved so both kinds see the same machine. */
    private void detection(TestNetwork network, Setting setting, int trials) throws IOException {
        String load = loadAverage();
        Map<Failure, List<Trial>> results = new HashMap<>();
        try (JGroupsCluster cluster = start(network, setting, List.of(), "detection-" + tag(network, setting))) {
            for (int i = 0; i < trials; i++) {
                for (Failure failure : Failure.values()) {
                    Trial trial = trial(network, cluster, failure, i);
                    results.computeIfAbsent(failure, f -> new ArrayList<>()).add(trial);
                    System.err.printf(
                            Locale.ROOT,
                            "  %s %s trial %d at %s: %s%n",
                            tag(network, setting),
                            failure.label,
                            i + 1,
                            LocalTime.ofInstant(
                                    Instant.EPOCH.plus(trial.failedAtMicros(), ChronoUnit.MICROS),
                                    ZoneId.systemDefault()),
                            trial);
                }
            }
        }
        String loads = "load " + load + " → " + loadAverage();
        for (Failure failure : Failure.values()) {
            List<Trial> all = results.get(failure);
            row(
                    "node death (" + failure.label + "), " + network.nodes().size() + " nodes, " + setting.label()
                            + ": failure → every survivor installed a view without the node",
                    summary(all, t -> true) + " (" + all.size() + " trials; coordinator failed: "
                            + summary(all, Trial::coordinatorFailed)
                            + ", other member failed: " + summary(all, t -> !t.coordinatorFailed())
                            + "; not detected within " + DETECTION_LIMIT.toSeconds() + " s: "
                            + all.stream().filter(t -> t.micros().isEmpty()).count()
                            + "; healthy members excluded by survivors' views until settled again: "
                            + all.stream().mapToInt(Trial::survivorsExcluded).sum()
                            + "; after restore, one whole view unchanged for 3 s at p50 "
                            + percentile(all.stream().map(Trial::restoreMillis).toList(), 50) + " ms, max "
                            + all.stream().mapToLong(Trial::restoreMillis).max().orElse(0)
                            + " ms, members restarted "
                            + all.stream().filter(Trial::restarted).count()
                            + "; `ip link set down` returned within p50 "
                            + percentile(all.stream().map(Trial::linkDownMicros).toList(), 50) / 1000
                            + " ms of the failure, counted in; " + loads + ")");
        }
    }

    /** Fails a node (the coordinator on even trials), measures, restores it and waits until the view is settled again. */
    private Trial trial(TestNetwork network, JGroupsCluster cluster, Failure failure, int index) {
        // so that the failure falls anywhere in the heartbeat period
        JGroupsCluster.sleep(SETTLE.plusMillis(random.nextInt(500)));
        TestNode coordinator = cluster.coordinator();
        boolean coordinatorFails = index % 2 == 0;
        List<TestNode> others =
                cluster.nodes().stream().filter(n -> !n.equals(coordinator)).toList();
        TestNode victim = coordinatorFails ? coordinator : others.get((index / 2) % others.size());
        List<TestNode> survivors =
                cluster.nodes().stream().filter(n -> !n.equals(victim)).toList();
        NamespacedProcess member = cluster.member(victim);

        long failedAt = JGroupsMember.nowMicros();
        if (failure == Failure.FROZEN_AND_LINK_DOWN) {
            JGroupsCluster.signal(member.pid(), JGroupsCluster.SIGSTOP);
        }
        network.linkDown(victim); // `ip link set eth0 down` in the namespace: a few ms after failedAt, counted in
        long linkDownMicros = JGroupsMember.nowMicros() - failedAt;

        Map<TestNode, View> firstWithout = new HashMap<>();
        boolean detected = JGroupsCluster.waitFor(DETECTION_LIMIT, () -> {
            for (TestNode survivor : survivors) {
                if (!firstWithout.containsKey(survivor)) {
                    cluster.views(survivor).stream()
                            .filter(v -> v.micros() >= failedAt && !v.members().contains(victim.name()))
                            .findFirst()
                            .ifPresent(v -> firstWithout.put(survivor, v));
                }
            }
            return firstWithout.size() == survivors.size();
        });
        LongSummaryStatistics installed =
                firstWithout.values().stream().mapToLong(View::micros).summaryStatistics();
        Optional<Long> micros = detected ? Optional.of(installed.getMax() - failedAt) : Optional.empty();

        long restoring = System.nanoTime();
        network.linkUp(victim);
        if (failure == Failure.FROZEN_AND_LINK_DOWN) {
            JGroupsCluster.signal(member.pid(), JGroupsCluster.SIGCONT);
        }
        boolean restarted = false;
        if (!JGroupsCluster.waitFor(RESTORE_LIMIT, cluster::settled)) {
            System.err.println(
                    "  " + victim.name() + " did not merge back within " + RESTORE_LIMIT + "; restarting its member");
            restarted = true;
            cluster.restart(victim);
            cluster.awaitSettled(RESTORE_LIMIT);
        }
        long restoreMillis = (System.nanoTime() - restoring) / 1_000_000;
        // views the survivors installed from the failure until now that lack a survivor: false exclusions
        Set<String> excluding = new HashSet<>();
        for (TestNode survivor : survivors) {
            cluster.views(survivor).stream()
                    .filter(v -> v.micros() >= failedAt
                            && !v.members()
                                    .containsAll(survivors.stream()
                                            .map(TestNode::name)
                                            .toList()))
                    .forEach(v -> excluding.add(v.id()));
        }
        return new Trial(
                failedAt,
                victim.name(),
                coordinatorFails,
                micros,
                detected ? installed.getMax() - installed.getMin() : 0,
                linkDownMicros,
                excluding.size(),
                restoreMillis,
                restarted);
    }

    // ---- false detections under CPU starvation ----------------------------------------------------------------------

    /** Healthy members for the load duration while stress-ng oversubscribes the CPUs; counts the views they install. */
    private void falseDetections(TestNetwork network, Setting setting, boolean realtime) throws IOException {
        List<String> prefix = realtime ? List.of("chrt", "-f", "10") : List.of();
        String priority = realtime ? "members under chrt -f 10 (SCHED_FIFO)" : "members at normal priority";
        try (JGroupsCluster cluster =
                start(network, setting, prefix, "load-" + (realtime ? "fifo-" : "normal-") + tag(network, setting))) {
            JGroupsCluster.sleep(Duration.ofSeconds(6)); // a STATS line from every member before the start
            Map<TestNode, Long> suspectsBefore = new HashMap<>();
            cluster.nodes().forEach(n -> suspectsBefore.put(n, cluster.suspectEvents(n)));
            long start = JGroupsMember.nowMicros();
            List<Double> loads = new ArrayList<>();
            try (Stress ignored = Stress.start(STRESS_WORKERS, options.load().plusSeconds(30))) {
                long samples = Math.max(1, options.load().toSeconds() / LOAD_SAMPLE.toSeconds());
                for (long i = 0; i < samples; i++) {
                    JGroupsCluster.sleep(LOAD_SAMPLE);
                    loads.add(Double.parseDouble(loadAverage().split(" ")[0]));
                }
            }
            long end = JGroupsMember.nowMicros();
            boolean wholeAfter = JGroupsCluster.waitFor(RESTORE_LIMIT, cluster::settled);
            JGroupsCluster.sleep(Duration.ofSeconds(6)); // the members' next STATS lines
            Set<String> views = new HashSet<>();
            Set<String> partial = new HashSet<>();
            for (TestNode node : cluster.nodes()) {
                for (View view : cluster.views(node)) {
                    if (view.micros() >= start) {
                        views.add(view.id());
                        if (view.members().size() < cluster.nodes().size()) {
                            partial.add(view.id());
                        }
                    }
                }
            }
            long suspects = cluster.nodes().stream()
                    .mapToLong(n -> cluster.suspectEvents(n) - suspectsBefore.get(n))
                    .sum();
            double meanLoad =
                    loads.stream().mapToDouble(Double::doubleValue).average().orElse(0);
            row(
                    "false detections, 3 healthy nodes, stress-ng --cpu " + STRESS_WORKERS + " for "
                            + options.load().toSeconds() / 60.0 + " min, " + priority + ", " + setting.label(),
                    String.format(
                            Locale.ROOT,
                            "%d views lacking a member (%d views installed, %d FD_ALL3 suspicions%s;"
                                    + " 1-min load avg during the run %.1f, max %.1f)",
                            partial.size(),
                            views.size(),
                            suspects,
                            wholeAfter ? "" : "; NOT whole again within " + RESTORE_LIMIT.toSeconds() + " s",
                            meanLoad,
                            loads.stream()
                                    .mapToDouble(Double::doubleValue)
                                    .max()
                                    .orElse(0)));
        }
    }

    /** stress-ng spinning {@code workers} CPU workers; its own --timeout bounds it should this JVM die first. */
    private record Stress(Process process) implements AutoCloseable {
        static Stress start(int workers, Duration limit) throws IOException {
            return new Stress(new ProcessBuilder(
                            "stress-ng",
                            "--cpu",
                            String.valueOf(workers),
                            "--timeout",
                            limit.toSeconds() + "s",
                            "--quiet")
                    .redirectOutput(Redirect.DISCARD)
                    .redirectError(Redirect.DISCARD)
                    .start());
        }

        @Override
        public void close() {
            List<ProcessHandle> workers = process.descendants().toList();
            process.destroy();
            JGroupsCluster.waitFor(Duration.ofSeconds(5), () -> !process.isAlive());
            workers.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    // ---- traffic ----------------------------------------------------------------------------------------------------

    /** Bytes and packets per second each node sends and receives for the detector (IP layer), steady state. */
    private void traffic(TestNetwork network, Setting setting) throws IOException {
        try (JGroupsCluster cluster = start(network, setting, List.of(), "traffic-" + tag(network, setting))) {
            JGroupsCluster.sleep(Duration.ofSeconds(5));
            Map<TestNode, Traffic> before = new HashMap<>();
            Map<TestNode, Long> cpuBefore = new HashMap<>();
            for (TestNode node : cluster.nodes()) {
                before.put(node, JGroupsCluster.traffic(network, node));
                cpuBefore.put(node, cpuTicks(cluster.member(node).pid()));
            }
            long startNanos = System.nanoTime();
            String load = loadAverage();
            JGroupsCluster.sleep(options.trafficWindow());
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            List<Traffic> deltas = new ArrayList<>();
            double cpuSeconds = 0;
            long rssKb = 0;
            for (TestNode node : cluster.nodes()) {
                deltas.add(JGroupsCluster.traffic(network, node).minus(before.get(node)));
                long pid = cluster.member(node).pid();
                cpuSeconds += (cpuTicks(pid) - cpuBefore.get(node)) / 100.0; // USER_HZ
                rssKb += rssKb(pid);
            }
            boolean whole = cluster.whole();
            int n = deltas.size();
            Traffic busiest = deltas.stream()
                    .max((a, b) -> Long.compare(a.sentBytes(), b.sentBytes()))
                    .orElseThrow();
            row(
                    "detector traffic per node, " + n + " nodes, " + setting.label() + " (TCP/UDP at the IP layer, "
                            + Math.round(seconds) + " s steady state)",
                    String.format(
                            Locale.ROOT,
                            "sent %.0f B/s, %.1f packets/s; received %.0f B/s, %.1f packets/s (mean of %d"
                                    + " nodes; busiest sends %.0f B/s, %.1f packets/s); member JVM CPU %.1f %% of a core,"
                                    + " RSS %d MB (means)%s; load %s",
                            deltas.stream().mapToLong(Traffic::sentBytes).sum() / seconds / n,
                            deltas.stream().mapToLong(Traffic::sentPackets).sum() / seconds / n,
                            deltas.stream().mapToLong(Traffic::receivedBytes).sum() / seconds / n,
                            deltas.stream().mapToLong(Traffic::receivedPackets).sum() / seconds / n,
                            n,
                            busiest.sentBytes() / seconds,
                            busiest.sentPackets() / seconds,
                            100 * cpuSeconds / seconds / n,
                            rssKb / n / 1024,
                            whole ? "" : "; view NOT whole at the end",
                            load));
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    private JGroupsCluster start(TestNetwork network, Setting setting, List<String> prefix, String label)
            throws IOException {
        for (TestNode node : network.nodes()) {
            JGroupsCluster.countTraffic(network, node);
        }
        MemberCommand command =
                new MemberCommand(prefix, memberJava, options.transport(), setting, options.memberOptions());
        return JGroupsCluster.start(network, command, logs.resolve("members"), label);
    }

    private static String tag(TestNetwork network, Setting setting) {
        return network.nodes().size() + "nodes-" + setting.intervalMs() + "-" + setting.timeoutMs() + "-"
                + setting.verifyMs();
    }

    /** "p50 X / p99 Y / max Z ms" of the detected trials that match. */
    private static String summary(List<Trial> trials, Predicate<Trial> which) {
        List<Long> micros = trials.stream()
                .filter(which)
                .flatMap(t -> t.micros().stream())
                .sorted()
                .toList();
        if (micros.isEmpty()) {
            return "none";
        }
        return String.format(
                Locale.ROOT,
                "p50 %d / p99 %d / max %d ms",
                percentile(micros, 50) / 1000,
                percentile(micros, 99) / 1000,
                micros.getLast() / 1000);
    }

    /** Nearest rank: with 20 values p99 is the largest. */
    private static long percentile(List<Long> values, int percent) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "?";
        }
    }

    /** utime + stime of the process, in clock ticks. */
    private static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException e) {
            return 0;
        }
    }

    private static long rssKb(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
                    .filter(l -> l.startsWith("VmRSS:"))
                    .findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("\\D", "")))
                    .orElse(0L);
        } catch (IOException e) {
            return 0;
        }
    }

    private void row(String figure, String value) {
        System.out.println("| " + detector + " | " + figure + " | " + value + " |");
        System.out.flush();
    }
}

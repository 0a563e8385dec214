package io.lbk8s.bench;

import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.net.ArpWatch;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a node's death costs a client, with the failure detector among speakers (not a test): for each kind of
 * death, as the LAN sees it and with nothing telling the API, the time from the failure to the client's first answer
 * from another node; whether two MACs ever answered ARP for the address within 100 ms, from a capture on the client
 * across every trial; API writes in a steady state; the detector's traffic at 3 and 10 nodes; and false takeovers
 * with the CPU oversubscribed. Prints markdown table rows.
 *
 * <p>Usage: {@code NodeFailureBenchmark [--quick] [--trials N] [--load-minutes M]} (0 minutes: no run under load). The speakers run with
 * {@code --rejoin-hold 0}, so that a node failed 60 times in a row is readmitted at once; the hold only delays a
 * node's return, never a takeover.
 */
public final class NodeFailureBenchmark {
    private static final Pattern METRIC = Pattern.compile("^([a-zA-Z0-9_:]+)(\\{[^}]*\\})? ([0-9.eE+-]+)$");
    private static final Duration TWO_MACS = Duration.ofMillis(100);

    enum Death {
        FROZEN_AND_LINK_DOWN("node frozen (SIGSTOP of every process) and its link down"),
        LINK_DOWN("node's link down"),
        SPEAKER_KILLED("speaker kill -9, its Pod left Ready");

        final String text;

        Death(String text) {
            this.text = text;
        }
    }

    private final Sandbox sandbox;
    private final TestNetwork network;
    private final String vip;

    private NodeFailureBenchmark(Sandbox sandbox, String vip) {
        this.sandbox = sandbox;
        this.network = sandbox.network;
        this.vip = vip;
    }

    public static void main(String[] args) throws Exception {
        List<String> options = Arrays.asList(args);
        boolean quick = options.contains("--quick");
        int trials = intOption(options, "--trials", quick ? 5 : 20);
        int loadMinutes = intOption(options, "--load-minutes", quick ? 1 : 10);
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            System.out.println("| failure detector | node failure figures | not measured: " + missing.get() + " |");
            return;
        }
        Path logs = Files.createTempDirectory("lbk8s-node-failure-bench");
        boolean measured = false;
        try {
            try (Sandbox sandbox = Sandbox.start(logs.resolve("three"), 3, List.of("--rejoin-hold", "0"))) {
                NodeFailureBenchmark bench = new NodeFailureBenchmark(
                        sandbox, sandbox.createLoadBalancer("bench").getHostAddress());
                bench.deaths(trials);
                bench.steadyState();
                bench.traffic();
                if (loadMinutes > 0) {
                    bench.underLoad(Duration.ofMinutes(loadMinutes));
                }
            }
            try (Sandbox ten = Sandbox.start(logs.resolve("ten"), 10, List.of())) {
                new NodeFailureBenchmark(ten, ten.createLoadBalancer("bench").getHostAddress()).traffic();
            }
            measured = true;
        } finally {
            if (measured) {
                TempFiles.deleteRecursively(logs);
            } else {
                System.err.println("NodeFailureBenchmark failed; the sandboxes' logs are in " + logs);
            }
        }
    }

    private static int intOption(List<String> options, String name, int fallback) {
        int at = options.indexOf(name);
        return at >= 0 && at + 1 < options.size() ? Integer.parseInt(options.get(at + 1)) : fallback;
    }

    // ---- node deaths ----

    private void deaths(int trials) throws IOException {
        Path capture = sandbox.logs.resolve("arp-capture.log");
        try (ArpWatch watch = ArpWatch.start(network, capture)) {
            NamespacedProcess asker = network.start(
                    network.client().namespace(),
                    L2ClientProbe.command(
                            "load",
                            network.client().interfaceName(),
                            network.client().ipv4().getHostAddress(),
                            vip,
                            "ff:ff:ff:ff:ff:ff",
                            String.valueOf(20 * 3600),
                            "20"),
                    sandbox.logs.resolve("arp-asker.log"));
            try {
                for (Death death : Death.values()) {
                    List<Long> micros = new ArrayList<>();
                    for (int i = 0; i < trials; i++) {
                        micros.add(trial(death));
                    }
                    row(
                            "failure detector",
                            death.text + " → the client's first answer from another node, p50 / p99 / max of " + trials
                                    + " (targets p50 ≤ 400 ms, p99 ≤ 800 ms)",
                            percentiles(micros));
                }
            } finally {
                asker.stop(Duration.ofSeconds(1));
            }
            List<ArpWatch.Answer> answers = watch.answers(Sandbox.address(vip));
            List<ArpWatch.Overlap> overlaps = ArpWatch.overlaps(answers, TWO_MACS);
            row(
                    "failure detector",
                    "windows of 100 ms in which two MACs answered ARP for the address, across all " + 3 * trials
                            + " failovers and the returns after them (target 0)",
                    overlaps.size() + " in " + answers.size() + " answers captured on the client"
                            + (overlaps.isEmpty() ? "" : ": " + overlaps.getFirst()));
        }
    }

    /** One death and the return; microseconds from the failure to the first curl another node answered. */
    private long trial(Death death) throws IOException {
        awaitSteady();
        TestNode leader = leader();
        Path log = Files.createTempFile(sandbox.logs, "http-watch", ".log");
        NamespacedProcess watch =
                network.start(network.client().namespace(), L2ClientProbe.command("http", vip, "2", "4000", "20"), log);
        watch.awaitLogLine(Pattern.compile("^\\d+ node-"), Duration.ofSeconds(20));
        long t0 = Sandbox.nowMicros();
        switch (death) {
            case FROZEN_AND_LINK_DOWN -> {
                network.freeze(leader);
                network.linkDown(leader);
            }
            case LINK_DOWN -> network.linkDown(leader);
            case SPEAKER_KILLED -> sandbox.speaker(leader).kill();
        }
        watch.waitFor(Duration.ofSeconds(30));
        long taken = -1;
        for (String line : watch.log().split("\n")) {
            String[] parts = line.strip().split(" ", 2);
            if (parts.length == 2
                    && parts[0].matches("\\d+")
                    && Long.parseLong(parts[0]) > t0
                    && parts[1].startsWith("node-")
                    && !parts[1].equals(leader.name())) {
                taken = Long.parseLong(parts[0]) - t0;
                break;
            }
        }
        network.linkUp(leader);
        network.thaw(leader);
        if (!sandbox.speaker(leader).isAlive()) {
            sandbox.restartSpeaker(leader);
        }
        if (taken < 0) {
            throw new IllegalStateException(
                    "no other node answered within the watch window (" + death + "); log " + log);
        }
        return taken;
    }

    // ---- steady state, traffic, load ----

    private void steadyState() throws InterruptedException {
        awaitSteady();
        Thread.sleep(5_000); // the return of the last trial's node settles (ServiceL2Status, Events)
        long before = sandbox.apiWrites();
        Thread.sleep(60_000);
        row(
                "speakers",
                "API writes in 60 s of steady state, 3 nodes (target 0)",
                String.valueOf(sandbox.apiWrites() - before));
    }

    private void traffic() throws InterruptedException {
        awaitSteady();
        int nodes = network.nodes().size();
        double[] before = {sum("lbk8s_peers_bytes_sent_total"), sum("lbk8s_peers_messages_sent_total")};
        long start = System.nanoTime();
        Thread.sleep(30_000);
        double seconds = (System.nanoTime() - start) / 1e9;
        double bytes = (sum("lbk8s_peers_bytes_sent_total") - before[0]) / seconds / nodes;
        double messages = (sum("lbk8s_peers_messages_sent_total") - before[1]) / seconds / nodes;
        // on the wire each datagram also carries 42 bytes of Ethernet, IPv4 and UDP headers
        row(
                "failure detector",
                "traffic sent per node, " + nodes + " nodes (heartbeats every 50 ms to each peer)",
                String.format(
                        Locale.ROOT,
                        "%.0f datagrams/s, %.1f KB/s of UDP payload (%.1f KB/s on the wire)",
                        messages,
                        bytes / 1000,
                        (bytes + 42 * messages) / 1000));
    }

    private void underLoad(Duration duration) throws IOException, InterruptedException {
        if (Stream.of("/usr/bin/stress-ng", "/usr/local/bin/stress-ng")
                .noneMatch(p -> Files.isExecutable(Path.of(p)))) {
            row(
                    "failure detector",
                    "false takeovers with the CPU oversubscribed",
                    "not measured: needs stress-ng (apt-get install stress-ng)");
            return;
        }
        awaitSteady();
        String[] counters = {
            "lbk8s_peers_failures_total",
            "lbk8s_speaker_takeovers_total",
            "lbk8s_peers_suspicions_total",
            "lbk8s_peers_stalls_total",
            "lbk8s_speaker_takeovers_deferred_total"
        };
        double[] before = Arrays.stream(counters).mapToDouble(this::sum).toArray();
        int cpus = Runtime.getRuntime().availableProcessors();
        Process stress = new ProcessBuilder(
                        "stress-ng", "--cpu", String.valueOf(2 * cpus), "--timeout", duration.toSeconds() + "s")
                .redirectErrorStream(true)
                .redirectOutput(sandbox.logs.resolve("stress-ng.log").toFile())
                .start();
        try {
            stress.waitFor();
        } finally {
            stress.destroyForcibly();
        }
        double[] after = Arrays.stream(counters).mapToDouble(this::sum).toArray();
        double lateness = max("lbk8s_peers_wake_lateness_seconds_max");
        row(
                "failure detector",
                String.format(
                        Locale.ROOT,
                        "false takeovers in %d min with the CPU oversubscribed (stress-ng --cpu %d"
                                + " on %d CPUs, 200 %% over), 3 nodes (target 0)",
                        duration.toMinutes(),
                        2 * cpus,
                        cpus),
                String.format(
                        Locale.ROOT,
                        "%.0f takeovers, %.0f peers declared dead, %.0f suspicions (silent > 125 ms), %.0f stalls,"
                                + " %.0f deferrals; detector's latest wake-up up to %.0f ms late",
                        after[1] - before[1],
                        after[0] - before[0],
                        after[2] - before[2],
                        after[3] - before[3],
                        after[4] - before[4],
                        lateness * 1000));
    }

    // ---- what the sandbox shows ----

    private void awaitSteady() {
        sandbox.awaitPeersAgree(Duration.ofMinutes(2));
        leader();
    }

    private TestNode leader() {
        return sandbox.awaitServingNode("bench", Sandbox.address(vip), Duration.ofSeconds(60));
    }

    /** The sum of a metric's series over every node. */
    private double sum(String name) {
        return network.nodes().stream()
                .mapToDouble(n -> values(n, name).stream()
                        .mapToDouble(Double::doubleValue)
                        .sum())
                .sum();
    }

    private double max(String name) {
        return network.nodes().stream()
                .flatMap(n -> values(n, name).stream())
                .mapToDouble(Double::doubleValue)
                .max()
                .orElse(0);
    }

    private List<Double> values(TestNode node, String name) {
        String text =
                sandbox.metrics(node).orElseThrow(() -> new IllegalStateException("no metrics from " + node.name()));
        List<Double> values = new ArrayList<>();
        for (String line : text.lines().toList()) {
            Matcher m = METRIC.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                values.add(Double.parseDouble(m.group(3)));
            }
        }
        return values;
    }

    private static String percentiles(List<Long> micros) {
        List<Long> sorted = micros.stream().sorted().toList();
        long p50 = sorted.get((sorted.size() - 1) / 2);
        long p99 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
        return String.format(
                Locale.ROOT, "%.0f ms / %.0f ms / %.0f ms", p50 / 1000.0, p99 / 1000.0, sorted.getLast() / 1000.0);
    }

    private static void row(String component, String figure, String value) {
        System.out.println("| " + component + " | " + figure + " | " + value + " |");
    }
}

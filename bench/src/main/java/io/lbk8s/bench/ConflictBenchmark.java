package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.testkit.net.ArpWatch;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Address conflicts on the namespace network (not a test): how long after another host's first gratuitous ARP for an
 * announced address its Warning Event is in the API, and what the probe before the first answer costs a new Service
 * (create → first curl answered, with the probe and with {@code --takeover-probe 0}). Prints markdown table rows.
 * Usage: {@code ConflictBenchmark [--quick]}.
 */
public final class ConflictBenchmark {
    private static final Duration SOON = Duration.ofSeconds(20);

    private ConflictBenchmark() {}

    public static void main(String[] args) throws Exception {
        boolean quick = args.length > 0 && args[0].equals("--quick");
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            System.out.println("| speaker | address conflict figures | not measured: " + missing.get() + " |");
            return;
        }
        int trials = quick ? 3 : 10;
        int services = quick ? 10 : 20; // twice, with the trials' addresses: at most the pool's 51
        Path logs = Files.createTempDirectory("lbk8s-conflict-bench");
        List<Long> probeOn;
        List<Long> probeOnPatient;
        try (Sandbox sandbox = Sandbox.start(
                logs.resolve("probe"), TestNetwork.DEFAULT_NODE_COUNT, List.of("--gratuitous-refresh", "0"))) {
            pool(sandbox);
            List<Long> latencies = eventLatencies(sandbox, trials);
            row(
                    "speaker",
                    "another host's first gratuitous ARP for an announced address → Warning Event in the API"
                            + " (target ≤ 1 s), p50 / max of " + trials,
                    millis(latencies));
            probeOn = createToCurl(sandbox, services, trials, false);
            probeOnPatient = createToCurl(sandbox, services, trials + services, true);
        }
        List<Long> probeOff;
        List<Long> probeOffPatient;
        try (Sandbox sandbox = Sandbox.start(
                logs.resolve("no-probe"), TestNetwork.DEFAULT_NODE_COUNT, List.of("--takeover-probe", "0"))) {
            pool(sandbox);
            probeOff = createToCurl(sandbox, services, trials, false);
            probeOffPatient = createToCurl(sandbox, services, trials + services, true);
        }
        String of = "p50 / p99 / max of " + services;
        row(
                "speaker",
                "Service created → first curl answered, curls of ≤ 200 ms one after another, " + of
                        + ", probe on (130 ms)",
                percentiles(probeOn));
        row(
                "speaker",
                "Service created → first curl answered, one curl started at the create, " + of + ", probe on (130 ms)",
                percentiles(probeOnPatient));
        row(
                "speaker",
                "Service created → first curl answered, curls of ≤ 200 ms one after another, " + of
                        + ", probe off (--takeover-probe 0)",
                percentiles(probeOff));
        row(
                "speaker",
                "Service created → first curl answered, one curl started at the create, " + of
                        + ", probe off (--takeover-probe 0)",
                percentiles(probeOffPatient));
    }

    private static void pool(Sandbox sandbox) {
        sandbox.createMetallb("IPAddressPool", "main", "{addresses: ['" + sandbox.network.ipv4Pool() + "']}");
        sandbox.createMetallb("L2Advertisement", "main", "{}");
    }

    /** Microseconds from the other host's gratuitous ARP (as the client captured it) to the Event being listed. */
    private static List<Long> eventLatencies(Sandbox sandbox, int trials) throws Exception {
        TestNetwork network = sandbox.network;
        TestClient foreign = network.foreignHost();
        AddressConflicts conflicts = new AddressConflicts(sandbox.client);
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < trials; i++) {
            String name = "claimed-" + i;
            InetAddress ip = network.ipv4PoolAddress(i);
            create(sandbox, name, ip);
            String leader = await(() -> sandbox.announcingNode("default", name));
            await(() -> network.client()
                    .arping(ip, Duration.ofSeconds(1))
                    .filter(sandbox.nodeNamed(leader).mac()::equals));
            Thread.sleep(1500); // the takeover burst is over
            try (ArpWatch watch = ArpWatch.start(network, sandbox.logs.resolve("arp-" + i + ".log"))) {
                must(foreign.run(
                        Duration.ofSeconds(5), "ip", "addr", "add", ip.getHostAddress() + "/24", "dev", "eth0"));
                var arping = CompletableFuture.supplyAsync(
                        () -> foreign.gratuitousArp(ip),
                        task -> Thread.ofPlatform().daemon().start(task));
                long seen = awaitEvent(sandbox, name, "claimed " + ip.getHostAddress());
                must(arping.join());
                long sent = watch.answers(ip).stream()
                        .filter(a -> a.mac().equals(foreign.mac()))
                        .mapToLong(ArpWatch.Answer::epochMicros)
                        .min()
                        .orElseThrow();
                latencies.add(seen - sent);
            }
            must(foreign.run(Duration.ofSeconds(5), "ip", "addr", "del", ip.getHostAddress() + "/24", "dev", "eth0"));
            await(() -> conflicts.get(IpAddress.of(ip)).isEmpty() ? Optional.of(true) : Optional.empty());
            sandbox.client.services().inNamespace("default").withName(name).delete();
        }
        return latencies;
    }

    /**
     * Microseconds from each create to the first curl the client got an answer to. {@code patient}: one curl started
     * right after the create waits up to 3 s, as a user's client would (the client's kernel holds its SYN until the
     * address resolves, and the speaker's gratuitous ARP resolves it); else curls of at most 200 ms each, one after
     * another, so that a curl that gives up just before the address answers costs up to 200 ms more.
     */
    private static List<Long> createToCurl(Sandbox sandbox, int services, int firstIndex, boolean patient) {
        List<Long> latencies = new ArrayList<>();
        Duration each = patient ? Duration.ofSeconds(3) : Duration.ofMillis(200);
        for (int i = 0; i < services; i++) {
            InetAddress ip = sandbox.network.ipv4PoolAddress(firstIndex + i);
            String name = (patient ? "patient-" : "web-") + i;
            long created = Sandbox.nowMicros();
            create(sandbox, name, ip);
            long deadline = System.nanoTime() + SOON.toNanos();
            while (sandbox.network.client().curl(ip, each).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no answer on " + ip + " within " + SOON);
                }
            }
            latencies.add(Sandbox.nowMicros() - created);
        }
        return latencies;
    }

    private static void create(Sandbox sandbox, String name, InetAddress ip) {
        sandbox.client
                .services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withAnnotations(Map.of("metallb.io/loadBalancerIPs", ip.getHostAddress()))
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(Map.of("app", name))
                        .addNewPort()
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
    }

    private static long awaitEvent(Sandbox sandbox, String service, String messagePart) throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        while (System.nanoTime() < deadline) {
            boolean there = sandbox.events("default", service).stream()
                    .anyMatch(e -> "AddressConflict".equals(e.getReason())
                            && e.getMessage() != null
                            && e.getMessage().contains(messagePart));
            if (there) {
                return Sandbox.nowMicros();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no AddressConflict Event on " + service + " within " + SOON);
    }

    private static <T> T await(java.util.function.Supplier<Optional<T>> what) throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<T> value = what.get();
            if (value.isPresent()) {
                return value.get();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("waited " + SOON + " in vain");
    }

    private static void must(CommandResult result) {
        if (!result.ok()) {
            throw new IllegalStateException(result.output());
        }
    }

    private static String millis(List<Long> micros) {
        List<Long> sorted = micros.stream().sorted().toList();
        return String.format(
                Locale.ROOT, "%.0f ms / %.0f ms", sorted.get(sorted.size() / 2) / 1000.0, sorted.getLast() / 1000.0);
    }

    /** "p50 ms / p99 ms / max ms" of latencies in microseconds. */
    static String percentiles(List<Long> micros) {
        List<Long> sorted = micros.stream().sorted().toList();
        long p99 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
        return String.format(
                Locale.ROOT,
                "%.0f ms / %.0f ms / %.0f ms",
                sorted.get(sorted.size() / 2) / 1000.0,
                p99 / 1000.0,
                sorted.getLast() / 1000.0);
    }

    private static void row(String component, String figure, String value) {
        System.out.println("| " + component + " | " + figure + " | " + value + " |");
    }
}

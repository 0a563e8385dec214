package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.install.InstallValues;
import io.lbk8s.install.Manifests;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two roles measured as they are deployed: the distribution's runtime, JVM flags and AOT cache (the image's
 * entrypoint, through the distribution's {@code bin/lbk8s}), the {@code JDK_JAVA_OPTIONS} and memory limit their
 * manifests set, each JVM in a memory cgroup of that limit (so the JVM sizes itself as in its Pod, and the kernel
 * kills it where the kubelet's cgroup would). Prints table rows: RSS idle and with many Services, start to ready.
 * Needs root for the cgroup (without one the limit is emulated with -XX:MaxRAM, and the rows say so) and, for the
 * speaker, the namespace network. Not a test. Usage: {@code DeployedRolesBenchmark DIST_DIR [--quick] [--addresses N] [controller | speaker]}
 * (--quick: fewer Services and runs; --addresses: the speaker's announced addresses, at most 4,000; a role's name: that role only).
 */
public final class DeployedRolesBenchmark {
    /** How long a role runs after it is ready (or has assigned or announced everything) before its memory is read. */
    private static final Duration SETTLE = Duration.ofSeconds(15);
    /** The speaker's extra interface for many announced addresses: the network's /24 holds too few. */
    private static final String WIDE_SUBNET = "198.19.0.0/20";

    private static final Pattern MEMORY_LIMIT = Pattern.compile("Memory Limit: (\\S+)");
    /**
     * BENCH_DIAGNOSE=1: native memory tracking on, and where the memory goes printed on stderr at each reading; after it
     * (a full GC) the heap's live objects by class.
     */
    private static final boolean DIAGNOSE = System.getenv("BENCH_DIAGNOSE") != null;
    /** BENCH_JAVA_OPTS: flags added to both roles' (to try one before it goes into the manifests; the rows name them). */
    private static final String EXTRA_JAVA_OPTS = System.getenv().getOrDefault("BENCH_JAVA_OPTS", "");

    private static final Pattern MAX_HEAP = Pattern.compile("size_t MaxHeapSize\\s+= (\\d+)");

    private final Path dist;
    private final Path work;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofMillis(200)).build();

    private DeployedRolesBenchmark(Path dist, Path work) {
        this.dist = dist;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args[0]);
        List<String> options = List.of(args).subList(1, args.length);
        boolean quick = options.contains("--quick");
        boolean controller = !options.contains("speaker"), speaker = !options.contains("controller");
        if (!Files.isRegularFile(dist.resolve("lbk8s.aot"))) {
            throw new IllegalArgumentException(
                    dist + " is not a distribution tree with its AOT cache (build dist first)");
        }
        Path work = Files.createTempDirectory("lbk8s-deployed-bench");
        var bench = new DeployedRolesBenchmark(dist, work);
        boolean measured = false;
        try {
            if (controller) {
                bench.controller(quick ? List.of(0, 500) : List.of(0, 1_000, 10_000));
            }
            if (speaker) {
                int addresses = options.contains("--addresses")
                        ? Integer.parseInt(options.get(options.indexOf("--addresses") + 1))
                        : quick ? 300 : 1_000;
                bench.speaker(addresses, quick ? 2 : 5);
            }
            measured = true;
        } finally {
            if (measured) {
                L2Benchmark.deleteTree(work);
            } else {
                System.err.println("DeployedRolesBenchmark failed; the logs are in " + work);
            }
        }
    }

    // ---- what the manifests deploy ----

    /** A role's container as the manifests (deploy/lbk8s.yaml, lbk8s install) set it: memory limit and JDK_JAVA_OPTIONS. */
    record Deployed(String role, long limitBytes, String jdkJavaOptions) {
        static Deployed of(String role) {
            for (HasMetadata object : Manifests.render(InstallValues.defaults())) {
                PodSpec spec = switch (object) {
                    case Deployment d -> d.getSpec().getTemplate().getSpec();
                    case DaemonSet d -> d.getSpec().getTemplate().getSpec();
                    default -> null;
                };
                if (spec == null || !spec.getContainers().getFirst().getName().equals(role)) {
                    continue;
                }
                Container container = spec.getContainers().getFirst();
                long limit = Quantity.getAmountInBytes(
                                container.getResources().getLimits().get("memory"))
                        .longValueExact();
                String options = container.getEnv().stream()
                        .filter(e -> e.getName().equals("JDK_JAVA_OPTIONS"))
                        .map(EnvVar::getValue)
                        .findFirst()
                        .orElse("");
                return new Deployed(role, limit, options);
            }
            throw new IllegalStateException("the manifests have no container " + role);
        }
    }

    /**
     * A script that runs a role as its Pod does: joins the role's memory group, sets the manifest's JDK_JAVA_OPTIONS
     * and execs the distribution's launcher (so the JVM keeps the script's pid). Rewritten for each variant.
     */
    private final class Launcher implements AutoCloseable {
        final Deployed deployed;
        final Optional<MemoryGroup> group;
        final Path script;

        Launcher(String role) throws IOException {
            deployed = Deployed.of(role);
            group = MemoryGroup.create("lbk8s-bench-" + role, deployed.limitBytes());
            script = work.resolve(role + "-launcher");
            write("-XX:AOTMode=on"); // the cache must fit: without it the figures would not be the image's
        }

        void write(String javaOpts) throws IOException {
            String limit = group.isPresent() ? group.get().joinScript() : "";
            String opts = javaOpts + (group.isEmpty() ? " -XX:MaxRAM=" + deployed.limitBytes() : "")
                    + (DIAGNOSE ? " -XX:NativeMemoryTracking=summary" : "") + " " + EXTRA_JAVA_OPTS;
            Files.writeString(
                    script,
                    "#!/bin/sh\n" + limit
                            + "unset JAVA_TOOL_OPTIONS JDK_JAVA_OPTIONS MALLOC_ARENA_MAX\n"
                            + (deployed.jdkJavaOptions().isEmpty()
                                    ? ""
                                    : "export JDK_JAVA_OPTIONS='" + inThisTree(deployed.jdkJavaOptions()) + "'\n")
                            + "export JAVA_OPTS='" + opts + "'\n"
                            + "exec '" + dist.resolve("bin/lbk8s") + "' \"$@\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        /** The manifests' options with the image's paths (its AOT caches) in the distribution tree measured. */
        private String inThisTree(String options) {
            return options.replace(Manifests.IMAGE_HOME + "/", dist.toAbsolutePath() + "/");
        }

        /** How the limit is applied, for the rows. */
        String how() {
            return group.map(g -> g.version() + " memory limit " + deployed.limitBytes() / 1024 / 1024 + " MiB")
                    .orElse("no cgroup here: limit emulated with -XX:MaxRAM=" + deployed.limitBytes() / 1024 / 1024
                            + "m");
        }

        /** What the JVM sees under the limit: its memory limit and the heap it allows itself. */
        String jvmView() throws IOException, InterruptedException {
            write("-XX:AOTMode=on -XshowSettings:system -XX:+PrintFlagsFinal");
            Process p = new ProcessBuilder(script.toString(), "version")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            p.waitFor(30, TimeUnit.SECONDS);
            write("-XX:AOTMode=on");
            Matcher limit = MEMORY_LIMIT.matcher(out);
            Matcher heap = MAX_HEAP.matcher(out);
            return (limit.find() ? limit.group(1) : "no limit seen") + " / max heap "
                    + (heap.find() ? Long.parseLong(heap.group(1)) / 1024 / 1024 + " MiB" : "?");
        }

        String memory(long pid) throws IOException, InterruptedException {
            String usage = group.isEmpty() ? "" : "; cgroup " + group.get().usageBytes() / 1024 / 1024 + " MiB";
            String reading = ProcessMemory.of(pid).describe() + usage;
            if (DIAGNOSE) {
                // where the memory goes, on stderr: the JVM's own account, the heap, the threads, then
                // (after a full GC, so after the reading) what the heap holds live
                for (String command :
                        List.of("VM.native_memory summary", "GC.heap_info", "GC.class_histogram", "GC.heap_info")) {
                    List<String> jcmd = new ArrayList<>(List.of(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            String.valueOf(pid)));
                    jcmd.addAll(List.of(command.split(" ")));
                    Process p =
                            new ProcessBuilder(jcmd).redirectErrorStream(true).start();
                    String out = new String(p.getInputStream().readAllBytes());
                    System.err.println(deployed.role() + " " + command + ":\n"
                            + (command.equals("GC.class_histogram")
                                    ? out.lines().limit(28).collect(java.util.stream.Collectors.joining("\n"))
                                    : out));
                    p.waitFor(30, TimeUnit.SECONDS);
                }
                try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                    System.err.println(deployed.role() + " threads: "
                            + tasks.map(t -> {
                                        try {
                                            return Files.readString(t.resolve("comm"))
                                                    .strip()
                                                    .replaceAll("\\d+$", "N");
                                        } catch (IOException e) {
                                            return "?";
                                        }
                                    })
                                    .collect(java.util.stream.Collectors.groupingBy(
                                            n -> n, java.util.TreeMap::new, java.util.stream.Collectors.counting())));
                }
            }
            return reading;
        }

        @Override
        public void close() {
            group.ifPresent(MemoryGroup::close);
        }
    }

    private void row(String component, String figure, String value) {
        System.out.printf("| %s | %s | %s |%n", component, figure, value);
    }

    private String conditions(Launcher launcher) {
        return "JDK_JAVA_OPTIONS "
                + (launcher.deployed.jdkJavaOptions().isEmpty() ? "(none)" : launcher.deployed.jdkJavaOptions())
                + (EXTRA_JAVA_OPTS.isBlank() ? "" : ", BENCH_JAVA_OPTS " + EXTRA_JAVA_OPTS)
                + (DIAGNOSE ? ", native memory tracking on" : "")
                + ", " + launcher.how();
    }

    // ---- the controller ----

    /** The controller started with {@code count} Services waiting (0: idle), against the in-process test API server. */
    void controller(List<Integer> counts) throws Exception {
        try (Launcher launcher = new Launcher("controller")) {
            row(
                    "controller",
                    "as deployed: the image's flags and AOT cache, " + conditions(launcher)
                            + "; the JVM sees: memory limit / max heap",
                    launcher.jvmView());
            for (int count : counts) {
                controller(launcher, count);
            }
        }
    }

    private void controller(Launcher launcher, int count) throws Exception {
        try (TestApiServer server = TestApiServer.start();
                KubernetesClient client = server.client()) {
            ControllerBenchmark.prepare(server, Math.max(count, 1));
            Path kubeconfig = server.writeKubeconfig(work.resolve("controller.kubeconfig"));
            var watch = new ControllerBenchmark.IpWatch();
            var informer = client.services().inNamespace("default").inform(watch);
            watch.expect(count);
            ControllerBenchmark.create(client, count);
            int port = freePort();
            long start = System.nanoTime();
            Process controller = new ProcessBuilder(
                            launcher.script.toString(),
                            "controller",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "--namespace",
                            "lbk8s-system",
                            "--metrics-address",
                            "127.0.0.1",
                            "--metrics-port",
                            String.valueOf(port))
                    .redirectErrorStream(true)
                    .redirectOutput(work.resolve("controller-" + count + ".log").toFile())
                    .start();
            String what = count == 0 ? "idle" : "with " + count + " Services assigned";
            try {
                long readyMillis = awaitReadyz(URI.create("http://127.0.0.1:" + port + "/readyz"), controller, start);
                if (count == 0) {
                    row(
                            "controller",
                            "start -> ready (/readyz 200), idle, with the AOT cache (one run; CPU shared)",
                            readyMillis + " ms");
                }
                if (!watch.latch.await(600, TimeUnit.SECONDS) || !controller.isAlive()) {
                    row(
                            "controller",
                            "RSS " + what,
                            "not reached: " + (count - watch.latch.getCount()) + " of " + count + " assigned"
                                    + died(launcher, controller));
                    return;
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                Thread.sleep(SETTLE);
                if (!controller.isAlive()) {
                    row("controller", "RSS " + what, "the controller exited" + died(launcher, controller));
                    return;
                }
                row(
                        "controller",
                        "RSS " + what + " (" + SETTLE.toSeconds() + " s after)",
                        launcher.memory(controller.pid()));
                if (count > 0) {
                    row(
                            "controller",
                            "started with " + count + " Services waiting -> all assigned, as deployed (CPU shared)",
                            "%.1f s".formatted(seconds));
                }
            } finally {
                controller.destroy();
                controller.waitFor(10, TimeUnit.SECONDS);
                informer.close();
            }
        }
    }

    private static String died(Launcher launcher, Process process) throws IOException {
        if (process.isAlive()) {
            return "";
        }
        long kills = launcher.group.isPresent() ? launcher.group.get().oomKills() : 0;
        return "; exit " + process.exitValue()
                + (kills > 0 ? ", killed by the OOM killer (" + kills + " in the group)" : "");
    }

    // ---- the speaker ----

    /**
     * One speaker on a one-node namespace network (the sandbox: test API server, controller, EndpointSlices), idle,
     * restarted {@code runs} times with and without the AOT cache, then with {@code count} Services it announces.
     */
    void speaker(int count, int runs) throws Exception {
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent()) {
            row("speaker", "deployed figures", "not measured: " + missing.get());
            return;
        }
        // The DaemonSet grants NET_RAW, SYS_NICE and NET_BIND_SERVICE only, so its speaker answers ARP from the raw
        // socket; as root here
        // it would load the XDP program.
        List<String> args = List.of("--no-arp-in-kernel");
        try (Launcher launcher = new Launcher("speaker");
                Sandbox sandbox = Sandbox.start(work.resolve("sandbox"), 1, launcher.script, args)) {
            TestNode node = sandbox.network.nodes().getFirst();
            row(
                    "speaker",
                    "as deployed: the image's flags and AOT cache, " + conditions(launcher)
                            + ", raw-socket ARP (the DaemonSet's capabilities); the JVM sees: memory limit / max heap",
                    launcher.jvmView());
            Thread.sleep(SETTLE);
            row(
                    "speaker",
                    "RSS idle (" + SETTLE.toSeconds() + " s after ready)",
                    launcher.memory(sandbox.speaker(node).pid()));
            startToReady(sandbox, node, launcher, runs);
            announcing(sandbox, node, launcher, count);
        }
    }

    private void startToReady(Sandbox sandbox, TestNode node, Launcher launcher, int runs) throws Exception {
        List<String> variants = List.of("-XX:AOTMode=on", "-XX:AOTMode=off");
        Map<String, List<Long>> millis = Map.of(variants.get(0), new ArrayList<>(), variants.get(1), new ArrayList<>());
        for (int i = -1; i < runs; i++) { // run -1 warms the page cache
            for (String variant : variants) {
                launcher.write(variant);
                long ms = restart(sandbox, node);
                if (i >= 0) {
                    millis.get(variant).add(ms);
                }
            }
        }
        launcher.write("-XX:AOTMode=on");
        restart(sandbox, node);
        row(
                "speaker",
                "start -> ready (/readyz 200), idle, with the AOT cache: median / max of " + runs
                        + " (CPU shared, load " + load() + ")",
                medianAndMax(millis.get(variants.get(0))));
        row(
                "speaker",
                "start -> ready, idle, without the AOT cache: median / max of " + runs,
                medianAndMax(millis.get(variants.get(1))));
    }

    /** Stops the speaker, starts it again, and returns the milliseconds from its start to /readyz answering 200. */
    private long restart(Sandbox sandbox, TestNode node) throws Exception {
        sandbox.speaker(node).stop(Duration.ofSeconds(5));
        sandbox.setSpeakerPodReady(node, false);
        long start = System.nanoTime();
        sandbox.startSpeaker(node);
        long ms = awaitReadyz(
                URI.create("http://" + node.ipv4().getHostAddress() + ":" + Sandbox.METRICS_PORT + "/readyz"),
                sandbox.speaker(node).process(),
                start);
        sandbox.awaitSpeakerReadyAndMarkPod(node);
        return ms;
    }

    private void announcing(Sandbox sandbox, TestNode node, Launcher launcher, int count) throws Exception {
        // a veth pair inside the node's namespace (no dummy driver everywhere): one end holds the subnet, both up for
        // carrier
        for (String[] command : List.of(
                new String[] {"ip", "link", "add", "lbbench0", "type", "veth", "peer", "name", "lbbench1"},
                new String[] {"ip", "address", "add", WIDE_SUBNET.replace(".0/", ".1/"), "dev", "lbbench0"},
                new String[] {"ip", "link", "set", "lbbench1", "up"},
                new String[] {"ip", "link", "set", "lbbench0", "up"})) {
            var result = sandbox.network.run(node.namespace(), Duration.ofSeconds(10), command);
            if (!result.ok()) {
                throw new IllegalStateException(String.join(" ", command) + ": " + result.output());
            }
        }
        sandbox.createMetallb("IPAddressPool", "bench", "{addresses: ['" + WIDE_SUBNET + "']}");
        sandbox.createMetallb("L2Advertisement", "bench", "{}");
        long start = System.nanoTime();
        Thread[] creators = new Thread[4];
        for (int t = 0; t < creators.length; t++) {
            int offset = t;
            creators[t] = Thread.ofVirtual().start(() -> {
                for (int i = offset; i < count; i += creators.length) {
                    sandbox.client
                            .services()
                            .resource(new ServiceBuilder(ControllerBenchmark.service("bench-" + i))
                                    .editSpec()
                                    .withSelector(Map.of("app", "bench"))
                                    .endSpec()
                                    .build())
                            .create();
                }
            });
        }
        for (Thread creator : creators) {
            creator.join();
        }
        String announcing = "announcing " + count + " address(es)";
        URI readyz = URI.create("http://" + node.ipv4().getHostAddress() + ":" + Sandbox.METRICS_PORT + "/readyz");
        Process speaker = sandbox.speaker(node).process();
        try {
            Sandbox.poll(
                    "the speaker to say " + announcing,
                    Duration.ofSeconds(600),
                    () -> get(readyz).map(r -> r.contains(announcing)).orElse(false) || !speaker.isAlive());
        } catch (IllegalStateException e) {
            row(
                    "speaker",
                    "RSS with " + count + " announced addresses",
                    "not reached: " + get(readyz).orElse("no answer"));
            return;
        }
        if (!speaker.isAlive()) {
            row(
                    "speaker",
                    "RSS with " + count + " announced addresses",
                    "the speaker exited" + died(launcher, speaker));
            return;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Thread.sleep(SETTLE);
        row(
                "speaker",
                "RSS with " + count + " announced addresses (Services with EndpointSlices; " + SETTLE.toSeconds()
                        + " s after)",
                launcher.memory(speaker.pid()));
        row(
                "speaker",
                count + " Services created -> all announced by the speaker (controller and API server on the same"
                        + " CPUs)",
                "%.1f s".formatted(seconds));
    }

    // ---- helpers ----

    /** Polls /readyz every 10 ms until it answers 200; the milliseconds from {@code since} (System.nanoTime) to then. */
    private long awaitReadyz(URI uri, Process process, long since) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            Optional<String> answer = get(uri);
            if (answer.isPresent() && answer.get().startsWith("200")) {
                return (System.nanoTime() - since) / 1_000_000;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        uri + ": the process exited (" + process.exitValue() + ") before it was ready");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException(uri + " never answered 200 within 120 s");
    }

    private Optional<String> get(URI uri) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return Optional.of(response.statusCode() + " " + response.body());
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    private static String medianAndMax(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2) + " ms / " + sorted.getLast() + " ms";
    }
}

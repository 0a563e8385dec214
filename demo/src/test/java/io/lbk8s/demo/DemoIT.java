package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code demo/run --plain} as a user would, non-interactively, and checks what it prints and that the machine is
 * as before afterwards: no namespace or host interface of its network, no process it started, no file it wrote. Also
 * interrupted twice: Ctrl-C (SIGINT to its whole process group, as a terminal sends it) once the Service has an
 * address, and SIGTERM to the demo alone while the sandbox is still being built.
 */
class DemoIT {
    static final Duration WHOLE_RUN = Duration.ofMinutes(8);
    static final Duration PROMPT_EXIT = Duration.ofSeconds(60);
    static final Path OUTPUT = Sandbox.REPO.resolve("demo/target/demo-it");

    @BeforeAll
    static void prerequisites() throws IOException {
        Optional<String> missing = TestNetwork.missingPrerequisites();
        if (missing.isPresent() && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("the demo test cannot run: " + missing.get());
        }
        assumeTrue(missing.isEmpty(), () -> "demo test skipped: " + missing.orElse(""));
        Files.createDirectories(OUTPUT);
    }

    @Test
    void showsEveryStepWithMeasuredFiguresAndLeavesNothingBehind() throws Exception {
        try (DemoProcess demo = DemoProcess.start("full")) {
            Footprint footprint = demo.footprintOnce(Pattern.compile("\\(after \\d+ (ms|\\.\\d+ s)\\)"));
            String out = demo.awaitSuccess();

            String ip4 =
                    group(out, "whoami +LoadBalancer +\\S+ +(198\\.18\\.\\d+\\.2\\d\\d) +80:\\d+/TCP +\\(after \\d+");
            String arpMac = group(out, "arping -c 1 -I eth0 " + Pattern.quote(ip4) + ": answered by ([0-9a-f:]{17})");
            String leader4 =
                    group(out, Pattern.quote(arpMac) + " is (node-\\d)'s MAC, the node its ServiceL2Status names");
            assertThat(out).contains("curl http://" + ip4 + "/: \"" + leader4 + "\"");
            String moved4 = group(
                    out,
                    "ip link set eth0 down: to the LAN, " + leader4
                            + " is dead.*\\n(?:.*\\n)*?.*first answer from (node-\\d) [\\d.]+ m?s after the failure");
            assertThat(moved4).isNotEqualTo(leader4);
            assertThat(out)
                    .containsPattern(
                            "arping " + Pattern.quote(ip4) + ": answered by [0-9a-f:]{17} \\(" + moved4 + "\\)\\n");
            assertThat(out)
                    .containsPattern(
                            "waiting for " + leader4 + " to be readmitted and lead " + Pattern.quote(ip4)
                                    + " again: its peers held it back for the rejoin hold \\(2 s\\), then handed the address back \\([\\d.]+ m?s\\)");

            String ip6 =
                    group(out, "whoami-v6 +LoadBalancer +\\S+ +(fd00:1b8:\\w+::2\\w\\w) +80:\\d+/TCP +\\(after \\d+");
            String ndpMac = group(out, "ndisc6 " + Pattern.quote(ip6) + " eth0: answered by ([0-9a-f:]{17})");
            String leader6 =
                    group(out, Pattern.quote(ndpMac) + " is (node-\\d)'s MAC, the node its ServiceL2Status names");
            assertThat(out).contains("curl http://[" + ip6 + "]/: \"" + leader6 + "\"");
            assertThat(out)
                    .containsPattern("ndisc6 " + Pattern.quote(ip6) + ": answered by [0-9a-f:]{17} \\((?!" + leader6
                            + ")node-\\d\\)\\n");

            assertThat(out)
                    .containsPattern(
                            "FAMILY +SERVICE +ADDRESS +ASSIGNED IN +ARP/NDP ANSWER +CURL +LEADER FAILED: MOVED TO"
                                    + " +SWITCH-OVER +FAILED REQUESTS +LONGEST GAP");
            String figures = " +\\d+ m?s +"
                    + "(node-\\d) ([0-9a-f:]{17}) +(node-\\d) +(node-\\d) +[\\d.]+ m?s +\\d+ of \\d+ +[\\d.]+ m?s";
            Matcher row4 = Pattern.compile("IPv4 +whoami +" + Pattern.quote(ip4) + figures)
                    .matcher(out);
            Matcher row6 = Pattern.compile("IPv6 +whoami-v6 +" + Pattern.quote(ip6) + figures)
                    .matcher(out);
            assertThat(row4.find()).as("IPv4 summary row in:\n%s", out).isTrue();
            assertThat(row6.find()).as("IPv6 summary row in:\n%s", out).isTrue();
            assertThat(List.of(row4.group(1), row4.group(2), row4.group(3), row4.group(4)))
                    .containsExactly(leader4, arpMac, leader4, moved4);
            assertThat(row6.group(1)).isEqualTo(leader6);

            assertThat(out).contains("nothing left behind").containsPattern("Done in [\\d.]+ s\\.");
            footprint.assertGone();
        }
    }

    @Test
    void withBgpShowsTheRoutersEvidenceForEveryStepAndLeavesNothingBehind() throws Exception {
        Optional<String> noFrr = TestNetwork.missingPrerequisites(RouterKind.FRR);
        if (noFrr.isPresent() && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("the BGP demo test cannot run: " + noFrr.get());
        }
        assumeTrue(noFrr.isEmpty(), () -> "BGP demo test skipped: " + noFrr.orElse(""));
        try (DemoProcess demo = DemoProcess.start("bgp", "--bgp")) {
            Footprint footprint = demo.footprintOnce(Pattern.compile("whoami +LoadBalancer .*\\(after \\d+"));
            String out = demo.awaitSuccess();

            String net = group(out, "NEIGHBOR +NODE +AS +BGP +BFD\\n +(198\\.18\\.\\d+)\\.11 ");
            for (int n = 1; n <= 3; n++) {
                assertThat(out)
                        .containsPattern(Pattern.quote(net + ".1" + n) + " +node-" + n + " +64512 +Established +up\\n");
            }
            String ip =
                    group(out, "whoami +LoadBalancer +\\S+ +(198\\.18\\.\\d+\\.2\\d\\d) +80:\\d+/TCP +\\(after \\d+");
            String all = "nexthop via " + net + ".11 \\(node-1\\), " + net + ".12 \\(node-2\\), " + net
                    + ".13 \\(node-3\\) proto bgp";
            assertThat(out)
                    .containsPattern("show bgp ipv4 unicast " + Pattern.quote(ip) + "/32': 3 paths")
                    .containsPattern(
                            "ip route show " + Pattern.quote(ip) + ": " + all + " \\([\\d.]+ m?s after the Service");
            String answers = group(
                    out,
                    "remote\\$ curl http://" + Pattern.quote(ip)
                            + "/ \\(20 times, each a new connection\\): answered by ([^\\n]*)\\n");
            assertThat(answers).as("answers over ECMP").matches("node-\\d x\\d+(, node-\\d x\\d+){1,2}");

            String frozenGone = group(
                    out,
                    "ip route show " + Pattern.quote(ip) + ": nexthop via " + net + ".12 \\(node-2\\), " + net
                            + ".13 \\(node-3\\) proto bgp \\(([\\d.]+ m?s) after the freeze\\)");
            assertThat(out).contains("'show bfd peers': node-1 down");
            assertThat(out)
                    .containsPattern(
                            "ip route show " + Pattern.quote(ip) + ": " + all + " \\([\\d.]+ m?s after the thaw\\)");
            assertThat(out)
                    .containsPattern("ip route show " + Pattern.quote(ip) + ": nexthop via " + net
                            + ".11 \\(node-1\\), " + net + ".13 \\(node-3\\) proto bgp \\([\\d.]+ m?s after SIGTERM\\)")
                    .contains("ready, and back in the router's FIB");

            assertThat(out)
                    .containsPattern("WHAT HAPPENED +WHAT THE ROUTER DID +TIME")
                    .containsPattern("Service whoami created +routes " + Pattern.quote(ip)
                            + " over the 3 nodes \\(ECMP\\) +[\\d.]+ m?s")
                    .containsPattern(
                            "20 calls from the remote client +answered by " + Pattern.quote(answers) + "; \\d+ failed")
                    .containsPattern(
                            "node-1 frozen \\(SIGSTOP\\) +dropped its next hop \\(BFD\\) +" + Pattern.quote(frozenGone))
                    .containsPattern("node-1 thawed \\(SIGCONT\\) +took it back +[\\d.]+ m?s")
                    .containsPattern(
                            "speaker on node-2 stopped \\(SIGTERM\\) +dropped its next hop \\(withdrawn\\) +[\\d.]+ m?s");
            assertThat(out).contains("nothing left behind").containsPattern("Done in [\\d.]+ s\\.");
            footprint.assertGone();
        }
    }

    @Test
    void ctrlCOnceTheServiceHasAnAddressStopsPromptlyAndLeavesNothingBehind() throws Exception {
        try (DemoProcess demo = DemoProcess.start("sigint")) {
            demo.awaitOutput(Pattern.compile("whoami +LoadBalancer .*\\(after \\d+"), WHOLE_RUN);
            Footprint footprint = demo.footprint();
            long signalled = System.nanoTime();
            demo.signalGroup("INT");
            int exit = demo.awaitExit(PROMPT_EXIT);
            System.out.printf(
                    "DemoIT: the demo exited %d ms after SIGINT%n", (System.nanoTime() - signalled) / 1_000_000);
            assertThat(exit)
                    .as("exit code; output:\n%s\nstderr:\n%s", demo.output(), demo.errors())
                    .isEqualTo(130);
            assertThat(demo.output())
                    .contains("Interrupted: stopping the demo and removing the sandbox")
                    .contains("nothing left behind")
                    .contains("(SIGINT).")
                    .doesNotContain("==> Summary");
            footprint.assertGone();
        }
    }

    @Test
    void sigtermWhileTheSandboxIsBeingBuiltLeavesNothingBehind() throws Exception {
        try (DemoProcess demo = DemoProcess.start("sigterm-build")) {
            Path logs = Path.of(demo.awaitOutput(Pattern.compile("logs and kubeconfig in (\\S+)"), WHOLE_RUN)
                    .group(1));
            // The network's backends are up and the API server not yet started: the middle of Sandbox.start.
            DemoProcess.await(
                    "the sandbox's first backend log",
                    WHOLE_RUN,
                    () -> Files.exists(logs.resolve("backend-node-1-ipv4.log")));
            Footprint footprint = demo.footprint();
            long signalled = System.nanoTime();
            demo.process.destroy(); // SIGTERM to the demo alone: its children must be stopped by it
            int exit = demo.awaitExit(PROMPT_EXIT.multipliedBy(2)); // it first lets the build finish
            System.out.printf(
                    "DemoIT: the demo exited %d ms after SIGTERM%n", (System.nanoTime() - signalled) / 1_000_000);
            assertThat(exit)
                    .as("exit code; output:\n%s\nstderr:\n%s", demo.output(), demo.errors())
                    .isEqualTo(143);
            assertThat(demo.output()).contains("nothing left behind").contains("(SIGTERM).");
            footprint.assertGone();
        }
    }

    static String group(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("/%s/ in the demo's output:\n%s", regex, text).isTrue();
        return m.group(1);
    }

    /**
     * What one run of the demo has on the machine, seen while it runs: its network ids (from the owner files naming
     * its pid), its processes (descendants, which ProcessHandle tells apart from later ones with the same pid), its
     * temporary directory, and the test API server's own temporary directory.
     */
    record Footprint(List<String> networkIds, List<ProcessHandle> processes, List<Path> directories) {

        void assertGone() {
            assertThat(networkIds).as("network ids of the demo").isNotEmpty();
            List<String> namespaces = command("ip", "netns", "list");
            List<String> links = command("ip", "-o", "link", "show");
            for (String id : networkIds) {
                assertThat(namespaces)
                        .as("namespaces of network " + id)
                        .noneMatch(l -> l.startsWith("lbk8s-" + id + "-"));
                assertThat(links).as("host interface of network " + id).noneMatch(l -> l.contains(" lbk8s" + id + "h"));
                assertThat(Path.of("/run/lbk8s-testnet", id + ".pid"))
                        .as("owner file of network " + id)
                        .doesNotExist();
            }
            assertThat(processes).as("processes the demo started").isNotEmpty();
            assertThat(processes.stream()
                            .filter(ProcessHandle::isAlive)
                            .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")))
                    .as("processes of the demo still running")
                    .isEmpty();
            for (Path dir : directories) {
                assertThat(dir).as("directory of the demo").doesNotExist();
            }
            assertThat(commandLinesContaining(directories.getFirst().toString()))
                    .as("processes naming its directory")
                    .isEmpty();
        }
    }

    static List<String> command(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            return new String(out).lines().toList();
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static List<String> commandLinesContaining(String text) {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline"))).replace('\0', ' ');
                    if (cmdline.contains(text)) {
                        found.add(proc.getFileName() + " " + cmdline);
                    }
                } catch (IOException gone) {
                    // exited meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return found;
    }

    /** demo/run in a session of its own (setsid), so that its process group can be signalled as a terminal would. */
    static final class DemoProcess implements AutoCloseable {
        final Process process;
        final Path stdout;
        final Path stderr;

        private DemoProcess(Process process, Path stdout, Path stderr) {
            this.process = process;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        static DemoProcess start(String name, String... options) throws IOException {
            Path stdout = OUTPUT.resolve(name + ".out");
            Path stderr = OUTPUT.resolve(name + ".err");
            // Maven packaged everything before the integration tests: demo/run must not build (or go online).
            List<String> command = new ArrayList<>(
                    List.of("setsid", Sandbox.REPO.resolve("demo/run").toString(), "--plain"));
            command.addAll(List.of(options));
            var builder = new ProcessBuilder(command)
                    .directory(Sandbox.REPO.toFile())
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            builder.environment().put("LBK8S_DEMO_BUILD", "never");
            DemoProcess demo = new DemoProcess(builder.start(), stdout, stderr);
            // setsid execs (this JVM's child leads no group), so the demo's pid is its process group's id too.
            await(
                    "setsid to exec the demo",
                    Duration.ofSeconds(10),
                    () -> processGroup(demo.process.pid()) == demo.process.pid() || !demo.process.isAlive());
            return demo;
        }

        String output() throws IOException {
            return Files.readString(stdout);
        }

        String errors() throws IOException {
            return Files.readString(stderr);
        }

        Matcher awaitOutput(Pattern pattern, Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Matcher m = pattern.matcher(output());
                if (m.find()) {
                    return m;
                }
                if (!process.isAlive()) {
                    throw new AssertionError("the demo exited (" + process.exitValue() + ") before printing /" + pattern
                            + "/:\n" + output() + "\nstderr:\n" + errors());
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no /" + pattern + "/ within " + timeout + " in:\n" + output());
                }
                Thread.sleep(100);
            }
        }

        /** Its footprint, seen once {@code midway} is printed (the sandbox is up by then). */
        Footprint footprintOnce(Pattern midway) throws Exception {
            awaitOutput(midway, WHOLE_RUN);
            return footprint();
        }

        /** Its output, once it has exited 0. */
        String awaitSuccess() throws Exception {
            int exit = awaitExit(WHOLE_RUN);
            String out = output();
            assertThat(exit)
                    .as("exit code; output:\n%s\nstderr:\n%s", out, errors())
                    .isZero();
            return out;
        }

        Footprint footprint() throws IOException {
            String pid = "pid=" + process.pid();
            List<String> ids = new ArrayList<>();
            try (Stream<Path> owners = Files.list(Path.of("/run/lbk8s-testnet"))) {
                for (Path owner :
                        owners.filter(p -> p.toString().endsWith(".pid")).toList()) {
                    if (Files.readAllLines(owner).contains(pid)) {
                        ids.add(owner.getFileName().toString().replace(".pid", ""));
                    }
                }
            }
            Path logs = Path.of(group(output(), "logs and kubeconfig in (\\S+)"));
            List<Path> directories = new ArrayList<>(List.of(logs));
            // The test API server's script makes its own temporary directory and names it on its java's command line.
            for (String cmdline : commandLinesContaining(logs.toString())) {
                Matcher tmp = Pattern.compile("-Djava\\.io\\.tmpdir=(\\S+)").matcher(cmdline);
                if (tmp.find()) {
                    directories.add(Path.of(tmp.group(1)));
                }
            }
            return new Footprint(ids, process.descendants().toList(), directories);
        }

        void signalGroup(String signal) {
            assertThat(command("kill", "-" + signal, "--", "-" + process.pid())).isEmpty();
        }

        int awaitExit(Duration timeout) throws Exception {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the demo did not exit within " + timeout + "; output:\n" + output());
            }
            return process.exitValue();
        }

        static void await(String what, Duration timeout, java.util.function.BooleanSupplier condition) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out waiting for " + what);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }

        static long processGroup(long pid) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        /** A test that failed half-way still stops the demo, which then removes its sandbox. */
        @Override
        public void close() throws Exception {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(PROMPT_EXIT.toSeconds() * 2, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }
}

package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Creation, teardown and stale-network removal, checked with ip(8) as an operator would. */
class TestNetworkLifecycleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @BeforeEach
    void prerequisites() {
        NetworkTests.assumeNetworkCanBeBuilt();
    }

    @Test
    void closeLeavesNoNamespaceNoHostInterfaceAndNoProcess() throws IOException {
        TestNetwork network = TestNetwork.create(1);
        String id = network.id();
        NamespacedProcess sleeper = network.start(
                network.node(1).namespace(),
                List.of("sleep", "60"),
                network.logDirectory().resolve("sleep.log"));
        List<ProcessHandle> all =
                network.processes().stream().map(p -> p.process().toHandle()).toList();
        assertThat(ipNetnsList()).contains("lbk8s-" + id + "-br", "lbk8s-" + id + "-node-1", "lbk8s-" + id + "-client");
        assertThat(ipLinkShow()).contains(" lbk8s" + id + "h");
        assertThat(Owners.file(id)).exists();
        Path logs = network.logDirectory();

        long start = System.nanoTime();
        network.close();
        System.out.printf("closed %s in %d ms%n", network, (System.nanoTime() - start) / 1_000_000);

        assertThat(ipNetnsList()).doesNotContain("lbk8s-" + id + "-");
        assertThat(ipLinkShow()).doesNotContain("lbk8s" + id + "h");
        assertThat(sleeper.isAlive()).isFalse();
        assertThat(all).hasSizeGreaterThanOrEqualTo(3).noneMatch(ProcessHandle::isAlive);
        assertThat(Owners.file(id)).doesNotExist();
        assertThat(logs).doesNotExist();
        network.close(); // idempotent
    }

    /** create() promises a bridge that already filters, so a test cannot pass on flooding by luck. */
    @Test
    void snoopingFiltersAsSoonAsCreateReturns() throws IOException {
        NetworkTests.assumeTool("tcpdump", "tcpdump");
        try (TestNetwork network = TestNetwork.create(1)) {
            NamespacedProcess capture = network.start(
                    network.node(1).namespace(),
                    List.of("tcpdump", "-p", "-n", "-l", "-i", "eth0", "icmp6 and ip6[40] == 135"),
                    network.logDirectory().resolve("capture.log"));
            capture.awaitLogLine("listening on", TIMEOUT);
            assertThat(network.client().ndisc6(network.ipv6PoolAddress(0), Duration.ofMillis(300)))
                    .isEmpty();
            // A solicitation for the node's own address does arrive: its kernel joined that group.
            assertThat(network.client().ndisc6(network.node(1).ipv6(), TIMEOUT))
                    .contains(network.node(1).mac());
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!capture.log()
                            .contains(
                                    "who has " + Addressing.text(network.node(1).ipv6()))
                    && System.nanoTime() < deadline) {
                Leftovers.sleep(Duration.ofMillis(20));
            }
            assertThat(capture.log())
                    .contains("who has " + Addressing.text(network.node(1).ipv6()))
                    .doesNotContain("who has " + Addressing.text(network.ipv6PoolAddress(0)));
        }
    }

    @Test
    void twoNetworksCoexistOnDifferentSubnets() throws IOException {
        try (TestNetwork first = TestNetwork.create(1);
                TestNetwork second = TestNetwork.create(1)) {
            assertThat(second.id()).isNotEqualTo(first.id());
            assertThat(second.ipv4Subnet()).isNotEqualTo(first.ipv4Subnet());
            assertThat(first.client().curl(first.node(1).ipv4(), 8080, TIMEOUT)).contains("node-1\n");
            assertThat(second.client().curl(second.node(1).ipv4(), 8080, TIMEOUT))
                    .contains("node-1\n");
            // A live network is not stale, whoever asks.
            TestNetwork.removeStale();
            assertThat(ipNetnsList()).contains("lbk8s-" + first.id() + "-br", "lbk8s-" + second.id() + "-br");
        }
    }

    @Test
    void removeStaleRemovesTheNetworkOfAKilledProcess() throws Exception {
        Process owner = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        StaleNetworkOwner.class.getName())
                .redirectErrorStream(true)
                .start();
        String id;
        try {
            id = readyId(owner);
        } finally {
            owner.destroyForcibly(); // SIGKILL: no shutdown hook runs
            owner.waitFor(10, TimeUnit.SECONDS);
        }
        List<Long> leftBehind = Leftovers.pidsIn("lbk8s-" + id + "-node-1");
        assertThat(leftBehind).as("the dead owner's backends still run").isNotEmpty();
        assertThat(ipNetnsList()).contains("lbk8s-" + id + "-node-1");
        assertThat(ipLinkShow()).contains(" lbk8s" + id + "h");

        assertThat(TestNetwork.removeStale()).isGreaterThanOrEqualTo(1);

        assertThat(ipNetnsList()).doesNotContain("lbk8s-" + id + "-");
        assertThat(ipLinkShow()).doesNotContain("lbk8s" + id + "h");
        // Orphans are reaped by init, maybe later: a zombie is dead enough.
        assertThat(leftBehind).noneMatch(pid -> Owners.startTicks(pid).isPresent());
        assertThat(Owners.file(id)).doesNotExist();
        try (var tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertThat(tmp.map(p -> p.getFileName().toString()))
                    .as("the dead owner's log directory is gone too")
                    .noneMatch(name -> name.startsWith("lbk8s-testnet-" + id + "-"));
        }
        assertThat(TestNetwork.removeStale()).isZero();
    }

    private static String readyId(Process owner) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            StringBuilder seen = new StringBuilder();
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("READY ")) {
                        return line.substring("READY ".length()).strip();
                    }
                    seen.append(line).append('\n');
                }
            } catch (IOException e) {
                seen.append(e);
            }
            throw new IllegalStateException("child exited without READY:\n" + seen);
        });
        return ready.get(30, TimeUnit.SECONDS);
    }

    private static String ipNetnsList() {
        return Shell.run(TIMEOUT, List.of(Tool.IP.path(), "netns", "list")).stdout();
    }

    private static String ipLinkShow() {
        return Shell.run(TIMEOUT, List.of(Tool.IP.path(), "-o", "link", "show")).stdout();
    }
}

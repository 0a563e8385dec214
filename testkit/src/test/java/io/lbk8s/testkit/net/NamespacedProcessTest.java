package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Starting, watching and stopping processes inside a namespace. */
class NamespacedProcessTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static TestNetwork network;

    @BeforeAll
    static void createNetwork() throws IOException {
        if (!NetworkTests.networkCanBeBuilt()) {
            return; // each test then reports why it is skipped (or fails, on CI)
        }
        network = TestNetwork.create(1);
    }

    @BeforeEach
    void prerequisites() {
        NetworkTests.assumeNetworkCanBeBuilt();
    }

    @AfterAll
    static void closeNetwork() {
        if (network != null) {
            network.close();
        }
    }

    @Test
    void pidIsTheCommandsOwnAndTerminateDeliversSigterm() {
        NamespacedProcess process = network.start(
                network.client().namespace(),
                List.of("sh", "-c", "trap 'echo got-term; exit 7' TERM; echo ready $$; while :; do sleep 0.1; done"),
                log("term.log"));
        String ready = process.awaitLogLine("^ready \\d+$", TIMEOUT);
        assertThat(ready).isEqualTo("ready " + process.pid()); // ip netns exec exec'd sh: same pid
        assertThat(process.isAlive()).isTrue();
        process.terminate();
        assertThat(process.waitFor(TIMEOUT)).hasValue(7);
        assertThat(process.log()).contains("got-term");
    }

    @Test
    void killStopsTheWholeTree() {
        NamespacedProcess process = network.start(
                network.client().namespace(),
                List.of("sh", "-c", "sleep 60 & sleep 60 & echo started; wait"),
                log("tree.log"));
        process.awaitLogLine("started", TIMEOUT);
        List<ProcessHandle> children = process.process().toHandle().children().toList();
        assertThat(children).hasSize(2);
        process.kill();
        assertThat(process.waitFor(TIMEOUT)).isPresent();
        // The orphans are reaped by init, which may take a while: a zombie counts as stopped.
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (children.stream().anyMatch(NamespacedProcessTest::running) && System.nanoTime() < deadline) {
            Leftovers.sleep(Duration.ofMillis(20));
        }
        assertThat(children).noneMatch(NamespacedProcessTest::running);
    }

    @Test
    void awaitLogLineFailsAtOnceWhenTheProcessExitsWithoutIt() {
        NamespacedProcess process = network.start(
                network.client().namespace(), List.of("sh", "-c", "echo something-else; exit 3"), log("exit.log"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> process.awaitLogLine("never-printed", Duration.ofSeconds(10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with 3")
                .hasMessageContaining("something-else");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void awaitLogLineGivesUpAfterItsTimeout() {
        NamespacedProcess process =
                network.start(network.client().namespace(), List.of("sleep", "30"), log("quiet.log"));
        assertThatThrownBy(() -> process.awaitLogLine("never", Duration.ofMillis(300)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("within PT0.3S");
        process.kill();
    }

    @Test
    void aReusedLogFileIsOnlySearchedFromThisProcesssOutputOn() throws IOException {
        Path file = log("reused.log");
        Files.writeString(file, "old-ready\n");
        NamespacedProcess process =
                network.start(network.client().namespace(), List.of("sh", "-c", "echo new-ready"), file);
        assertThat(process.awaitLogLine("ready", TIMEOUT)).isEqualTo("new-ready");
        assertThat(Files.readString(file)).isEqualTo("old-ready\nnew-ready\n");
    }

    @Test
    void aMissingCommandIsReportedThroughTheLog() {
        NamespacedProcess process =
                network.start(network.client().namespace(), List.of("no-such-command-lbk8s"), log("missing.log"));
        assertThatThrownBy(() -> process.awaitLogLine("ready", TIMEOUT)).hasMessageContaining("no-such-command-lbk8s");
    }

    @Test
    void clientRunReportsATimeoutInsteadOfHanging() {
        long start = System.nanoTime();
        CommandResult result = network.client().run(Duration.ofMillis(300), "sleep", "30");
        assertThat(result.timedOut()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }

    private static boolean running(ProcessHandle handle) {
        return Owners.startTicks(handle.pid()).isPresent();
    }

    private static Path log(String name) {
        return network.logDirectory().resolve(name);
    }
}

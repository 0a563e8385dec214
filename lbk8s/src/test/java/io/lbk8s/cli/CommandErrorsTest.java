package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every command ends a user's error the same way: one sentence on stderr, a non-zero exit code, no stack trace. */
class CommandErrorsTest {

    static final Path MISSING = Path.of("/nonexistent/lbk8s-test/kubeconfig");

    /** The run's stderr is exactly one line, and no stack frame. */
    static void assertOneSentence(CliRun run) {
        assertThat(run.err())
                .as(run.err())
                .endsWith("\n")
                .doesNotContain("\tat ")
                .doesNotContain("at io.")
                .doesNotContain("Exception");
        assertThat(run.err().lines()).as(run.err()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"controller", "speaker --node n1", "status", "install", "uninstall", "migrate"})
    void aKubeconfigThatDoesNotExistEndsTheCommandWithOneSentence(String command) {
        CliRun run = CliRun.of(MISSING, command.split(" "));
        assertThat(run.code()).isEqualTo(1);
        assertOneSentence(run);
        assertThat(run.err()).isEqualTo("error: kubeconfig " + MISSING + " does not exist\n");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "controller --lease-duration soon",
                "speaker --node n1 --rejoin-hold soon",
                "install --timeout=soon"
            })
    void aBadDurationIsOneSentenceNamingTheFlag(String command) {
        CliRun run = CliRun.of(MISSING, command.split(" "));
        assertThat(run.code()).isEqualTo(2);
        assertOneSentence(run);
        assertThat(run.err()).startsWith("error: --").contains(": \"soon\" is not a duration like 90s, 3m or 500ms");
    }

    @Test
    void anUnknownFlagIsOneSentenceWithTheLikelyFlag() {
        CliRun run = CliRun.of(MISSING, "speaker", "--node", "n1", "--gratuitus-refresh", "1s");
        assertThat(run.code()).isEqualTo(2);
        assertOneSentence(run);
        assertThat(run.err())
                .contains("--gratuitus-refresh")
                .contains("did you mean --gratuitous-refresh?")
                .endsWith(" (see lbk8s speaker --help)\n");
    }

    @Test
    void aMetricsPortInUseIsOneSentenceNamingTheFlags(@TempDir Path dir) throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """);
        try (var taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun run = CliRun.of(
                    kubeconfig,
                    "controller",
                    "--metrics-address",
                    "127.0.0.1",
                    "--metrics-port",
                    String.valueOf(taken.getLocalPort()));
            assertThat(run.code()).isEqualTo(1);
            assertOneSentence(run);
            assertThat(run.err())
                    .startsWith("error: cannot serve /metrics on 127.0.0.1:" + taken.getLocalPort()
                            + " (--metrics-address, --metrics-port): ");
        }
    }
}

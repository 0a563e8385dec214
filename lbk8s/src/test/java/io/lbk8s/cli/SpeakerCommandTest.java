package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.speaker.SpeakerSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The speaker's duration flags: read by the one duration parser, refused with a sentence before anything starts. */
class SpeakerCommandTest {

    static SpeakerSettings parsed(String... args) {
        var command = new SpeakerCommand();
        new CommandLine(command).parseArgs(args);
        return command.settings();
    }

    static CliRun run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    @Test
    void takesMillisecondsForTheGratuitousRefreshAndTheRejoinHold() {
        SpeakerSettings settings = parsed(
                "--node",
                "n1",
                "--gratuitous-refresh",
                "500ms",
                "--rejoin-hold",
                "500ms",
                "--takeover-probe",
                "1s",
                "--flap-window",
                "1h");
        assertThat(settings.gratuitousRefresh()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.peers().membership().rejoinHold()).isEqualTo(Duration.ofMillis(500));
        assertThat(settings.takeoverProbe()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.peers().membership().flapWindow()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void zeroTurnsTheRefreshAndTheProbeOff() {
        SpeakerSettings settings = parsed("--node", "n1", "--gratuitous-refresh", "0", "--takeover-probe", "0");
        assertThat(settings.gratuitousRefresh()).isZero();
        assertThat(settings.takeoverProbe()).isZero();
    }

    @Test
    void aRefreshOf500msGetsPastTheFlagsToTheKubeconfig() {
        CliRun run = run(
                "speaker", "--node", "n1", "--gratuitous-refresh", "500ms", "--kubeconfig", "/nonexistent/kubeconfig");
        assertThat(run.err()).doesNotContain("not a duration").contains("/nonexistent/kubeconfig");
    }

    @Test
    void aDurationThatIsNotOneIsRefusedNamingTheFlag() {
        CliRun run = run("speaker", "--node", "n1", "--gratuitous-refresh", "often");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--gratuitous-refresh: \"often\" is not a duration like 90s, 3m or 500ms");
    }

    @Test
    void theBgpListenPortIs179UnlessToldAndZeroTurnsItOff() {
        assertThat(parsed("--node", "n1").bgpListenPort()).isEqualTo(179);
        assertThat(parsed("--node", "n1", "--bgp-listen-port", "0").bgpListenPort())
                .isZero();
        CliRun run = run("speaker", "--node", "n1", "--bgp-listen-port", "70000");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--bgp-listen-port 70000 is not a TCP port (0 turns it off)");
    }

    @Test
    void aZeroPeerTimeoutIsRefused() {
        CliRun run = run("speaker", "--node", "n1", "--peer-timeout", "0");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--peer-timeout must be more than 0");
    }
}

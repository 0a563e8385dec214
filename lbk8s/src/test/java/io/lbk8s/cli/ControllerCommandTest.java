package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.election.Candidacy;
import io.lbk8s.election.ElectionSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The controller's election flags: defaults, --leader-elect=false, and settings refused before anything connects. */
class ControllerCommandTest {

    static Optional<Candidacy> parsed(String... args) {
        var command = new ControllerCommand();
        new CommandLine(command).parseArgs(args);
        return command.candidacy();
    }

    /** A run that must end before connecting: the arguments are refused (no kubeconfig is given). */
    static Refused refused(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var all = new String[args.length + 1];
        all[0] = "controller";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = Main.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(all);
        return new Refused(code, out.toString(), err.toString());
    }

    record Refused(int code, String out, String err) {}

    @Test
    void electsByDefaultWithLease3sRenewDeadline2sRetry500ms() {
        Candidacy candidacy = parsed().orElseThrow();
        assertThat(candidacy.settings()).isEqualTo(ElectionSettings.DEFAULTS);
        assertThat(candidacy.settings())
                .isEqualTo(new ElectionSettings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(500)));
        Optional<String> pod = Optional.ofNullable(System.getenv("POD_NAME")).filter(s -> !s.isBlank());
        assertThat(candidacy.identity()).matches(pod.map(Pattern::quote).orElse(".+-[0-9a-f]{5}"));
    }

    @Test
    void twoCandidatesOnOneHostWithoutAPodNameHaveDifferentIdentities() {
        assertThat(Candidacy.identity(Optional.empty())).isNotEqualTo(Candidacy.identity(Optional.empty()));
        assertThat(Candidacy.identity(Optional.of("lbk8s-controller-7d9f-abcde")))
                .isEqualTo("lbk8s-controller-7d9f-abcde");
    }

    @Test
    void takesItsSettingsFromTheFlags() {
        assertThat(parsed("--lease-duration", "10s", "--renew-deadline=8s", "--retry-period", "1s")
                        .orElseThrow()
                        .settings())
                .isEqualTo(new ElectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(8), Duration.ofSeconds(1)));
    }

    @Test
    void leaderElectFalseLeadsWithoutAnElection() {
        assertThat(parsed("--leader-elect=false")).isEmpty();
        assertThat(parsed("--leader-elect")).isPresent();
        assertThat(parsed("--leader-elect=true")).isPresent();
    }

    @Test
    void aRenewDeadlineNotShorterThanTheLeaseIsRefusedWithASentence() {
        Refused run = refused("--lease-duration", "2s", "--renew-deadline", "2s");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("the renew deadline (2000ms) must be shorter than the lease duration (2000ms)");
    }

    @Test
    void aDurationThatIsNotOneIsRefusedNamingTheFlag() {
        Refused run = refused("--retry-period", "fast");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--retry-period: \"fast\" is not a duration like 90s, 3m or 500ms");
    }

    @Test
    void helpNamesTheElectionFlagsAndTheirDefaults() {
        StringWriter out = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).execute("controller", "--help");
        String help = out.toString().replaceAll("\\s+", " ");
        assertThat(code).isZero();
        assertThat(help)
                .contains("--leader-elect")
                .contains("(default: true)")
                .contains("--lease-duration")
                .contains("(default: 3s)")
                .contains("--renew-deadline")
                .contains("(default: 2s)")
                .contains("--retry-period")
                .contains("(default: 500ms)");
    }
}

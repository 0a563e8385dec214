package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The help texts of the install-related commands say what is true, and every command takes --help. */
class CliHelpTest {

    record Run(int code, String out, String err) {
        /** The output with line breaks and indentation folded to single spaces, so wrapping does not matter. */
        String flat() {
            return out.replaceAll("\\s+", " ");
        }
    }

    static Run lbk8s(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void versionTakesHelp() {
        Run help = lbk8s("version", "--help");
        assertThat(help.code()).as(help.err()).isZero();
        assertThat(help.err()).doesNotContain("Unknown option");
        assertThat(help.out()).contains("Usage: lbk8s version").contains("Print the lbk8s version.");
    }

    @Test
    void topLevelHelpShowsTheStatusSentenceWhole() {
        Run help = lbk8s("--help");
        assertThat(help.code()).isZero();
        // the top-level help shows only the first description line of each subcommand: it must be a whole sentence
        assertThat(help.flat())
                .containsPattern("status Show which controller leads, the address pools [^.]* announcing node\\. ");
    }

    @Test
    void installHelpSaysWhatARerunKeepsAndWhatItResets() {
        Run help = lbk8s("install", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.flat())
                .doesNotContain("Running it again changes nothing")
                .contains(
                        "Running it again with the same flags changes nothing; flags you leave out take their defaults");
    }
}

package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The script {@code lbk8s completion bash|zsh} prints, sourced by bash or zsh, completes what a user types. */
class CompletionCommandTest {
    @TempDir
    Path dir;

    /**
     * What bash offers for {@code line} (the last word is being completed): the script is sourced, then its
     * completion function is called as bash's {@code complete -F} calls it, with the words of the line.
     */
    List<String> complete(String commandName, String line) throws IOException, InterruptedException {
        CliRun script = KubectlFlagsTest.run(commandName, "completion", "bash");
        assertThat(script.code()).as(script.err()).isZero();
        Path file = Files.writeString(dir.resolve("completion.bash"), script.out());
        String program = """
                source "$1"
                read -r -a COMP_WORDS <<<"$2"
                [[ "$2" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMP_LINE=$2
                COMP_POINT=${#COMP_LINE}
                function=$(complete -p "${COMP_WORDS[0]}" | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
                "$function" 2>/dev/null
                printf '%s\\n' "${COMPREPLY[@]}"
                """;
        return nonEmptyLines("bash", "--norc", "--noprofile", "-c", program, "bash", file.toString(), line);
    }

    /** What a shell printed, its empty lines left out; it must finish well and within 30 s. */
    List<String> nonEmptyLines(String... command) throws IOException, InterruptedException {
        Path out = dir.resolve("out");
        Process shell = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        assertThat(shell.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(shell.exitValue()).as(Files.readString(out)).isZero();
        return Files.readAllLines(out).stream().filter(s -> !s.isEmpty()).toList();
    }

    /**
     * What zsh offers for {@code line}: the script, sourced by zsh, loads bashcompinit itself; its function is then
     * called as bashcompinit's {@code _bash_complete} calls it (arrays from 0, the words of the line). zsh's own
     * matching, not the function, keeps the candidates that start with what was typed, so callers check containment.
     */
    List<String> completeInZsh(String line) throws IOException, InterruptedException {
        CliRun script = KubectlFlagsTest.run("lbk8s", "completion", "zsh");
        assertThat(script.code()).as(script.err()).isZero();
        Path file = Files.writeString(dir.resolve("completion.zsh"), script.out());
        String function = script.out()
                .lines()
                .filter(l -> l.startsWith("complete -F "))
                .map(l -> l.split(" ")[2])
                .findFirst()
                .orElseThrow();
        String program = """
                source "$1"
                setopt ksharrays
                COMP_WORDS=(${=2})
                [[ "$2" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMP_LINE=$2
                COMP_POINT=${#COMP_LINE}
                "$3" 2>/dev/null
                print -l -- "${COMPREPLY[@]}"
                """;
        String zsh = Stream.of("/usr/bin/zsh", "/bin/zsh")
                .filter(p -> Files.isExecutable(Path.of(p)))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "zsh not found: install the Debian package zsh (bin/prerequisites test does)"));
        return nonEmptyLines(zsh, "-f", "-c", program, "zsh", file.toString(), line, function);
    }

    @Test
    void completesInZshToo() throws Exception {
        assertThat(completeInZsh("lbk8s st")).contains("status").doesNotContain("--request-timeout");
        assertThat(completeInZsh("lbk8s status --req"))
                .contains("--request-timeout")
                .doesNotContain("status", "install");
        assertThat(completeInZsh("lbk8s status -o ")).containsExactlyInAnyOrder("yaml", "json");
        assertThat(completeInZsh("lbk8s completion ")).containsExactlyInAnyOrder("bash", "zsh");
    }

    @Test
    void completesSubcommandsFlagsAndValues() throws Exception {
        assertThat(complete("lbk8s", "lbk8s st")).containsExactly("status");
        assertThat(complete("lbk8s", "lbk8s status --req")).containsExactly("--request-timeout");
        assertThat(complete("lbk8s", "lbk8s status -o ")).containsExactlyInAnyOrder("yaml", "json");
        assertThat(complete("lbk8s", "lbk8s completion ")).containsExactlyInAnyOrder("bash", "zsh");
    }

    @Test
    void theKubectlPluginsScriptCompletesKubectlLbk8s() throws Exception {
        assertThat(complete("kubectl lbk8s", "kubectl-lbk8s sta")).containsExactly("status");
    }
}

package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The answer kubectl reads from kubectl_complete-lbk8s: Cobra's __complete format. */
class KubectlCompletionTest {
    static List<String> answer(String... words) {
        StringWriter out = new StringWriter();
        assertThat(KubectlCompletion.print(Main.commandLine(), List.of(words), new PrintWriter(out)))
                .isZero();
        return out.toString().lines().toList();
    }

    @ParameterizedTest(name = "kubectl lbk8s {0}<TAB>")
    @CsvSource(
            delimiter = '|',
            value = {
                "st|status",
                "status --req|--request-timeout",
                "'status -o '|json,yaml",
                "'completion '|--help,--version,-V,-h,bash,zsh",
                "inst|install",
                "statsu|"
            })
    void candidatesThenTheDirective(String line, String expected) {
        String[] words = line.split(" ", -1);
        List<String> candidates = expected == null ? List.of() : List.of(expected.split(","));
        assertThat(answer(words)).endsWith(":4").hasSize(candidates.size() + 1);
        assertThat(answer(words).subList(0, candidates.size())).containsExactlyInAnyOrderElementsOf(candidates);
    }

    @Test
    void aNewWordOffersTheSubcommandsButNotTheHiddenOnes() {
        assertThat(answer(""))
                .contains("controller", "speaker", "install", "status", "completion")
                .doesNotContain("aot-training", KubectlCompletion.COMMAND);
        assertThat(answer()).isEqualTo(answer(""));
    }

    @Test
    void lbk8sUnderscoreCompleteAnswersTheSame() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertThat(Main.run(KubectlCompletion.COMMAND, "status", "-o", "")).isZero();
        } finally {
            System.setOut(stdout);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("json\nyaml\n:4\n");
    }
}

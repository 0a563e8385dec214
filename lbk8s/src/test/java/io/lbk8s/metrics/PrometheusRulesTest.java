package io.lbk8s.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules pass Prometheus's own checks: {@code promtool check rules}, and {@code promtool test rules} with
 * prometheus-rules-test.yaml (whose series ObservabilityIT holds to what /metrics exports). promtool comes with the
 * Debian package prometheus, which bin/prerequisites installs for ./test.
 */
class PrometheusRulesTest {

    static Path promtool() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(dir -> Path.of(dir, "promtool"))
                .filter(Files::isExecutable)
                .findFirst()
                .or(() -> Stream.of(Path.of("/usr/bin/promtool"))
                        .filter(Files::isExecutable)
                        .findFirst())
                .orElseThrow(() -> new AssertionError(
                        "promtool not found: install the Debian package prometheus (bin/prerequisites test does)"));
    }

    record Run(int exit, String output) {}

    static Run run(Path dir, String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Stream.concat(Stream.of(promtool().toString()), Stream.of(args))
                        .toList())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        return new Run(p.exitValue(), output);
    }

    /** The rules and their tests side by side, as the test file names the rules file. */
    static Path workDir() throws IOException {
        Path dir = Files.createDirectories(Path.of("target", "promtool"));
        Files.copy(ObservabilityFiles.RULES, dir.resolve("prometheus-rules.yaml"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
                ObservabilityFiles.RULES_TEST,
                dir.resolve("prometheus-rules-test.yaml"),
                StandardCopyOption.REPLACE_EXISTING);
        return dir;
    }

    @Test
    void promtoolChecksTheRules() throws Exception {
        Run check = run(workDir(), "check", "rules", "prometheus-rules.yaml");
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output())
                .contains("SUCCESS: " + ObservabilityFiles.alerts().size() + " rules found");
    }

    @Test
    void promtoolUnitTestsPass() throws Exception {
        Run test = run(workDir(), "test", "rules", "prometheus-rules-test.yaml");
        assertThat(test.exit()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void promtoolWouldSeeABrokenRule() throws Exception {
        Path dir = workDir();
        Path rules = dir.resolve("prometheus-rules.yaml");
        Files.writeString(rules, Files.readString(rules).replace("lbk8s_peers_ready == 0", "lbk8s_peers_ready == 2"));
        Run test = run(dir, "test", "rules", "prometheus-rules-test.yaml");
        assertThat(test.exit()).isNotZero();
        assertThat(test.output()).contains("FAILED", "alertname: Lbk8sSpeakerHeldBack");
    }

    @Test
    void everyAlertIsTestedAndDocumented() throws IOException {
        String tests = Files.readString(ObservabilityFiles.RULES_TEST);
        String docs = Files.readString(Path.of("..", "docs", "observability.md"));
        List<String> headings = docs.lines()
                .filter(l -> l.startsWith("### "))
                .map(l -> l.substring(4).strip())
                .toList();
        for (String alert : ObservabilityFiles.alerts().keySet()) {
            assertThat(tests).as(alert + " fires in a promtool test").contains("alertname: " + alert + "\n");
            assertThat(headings)
                    .as(alert + " has its section in docs/observability.md")
                    .contains(alert);
            assertThat(Files.readString(ObservabilityFiles.RULES))
                    .contains("runbook: docs/observability.md#" + alert.toLowerCase(Locale.ROOT));
        }
    }
}

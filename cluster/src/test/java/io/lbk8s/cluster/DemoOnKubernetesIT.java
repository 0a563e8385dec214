package io.lbk8s.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code demo/run --kubernetes --plain} as a user runs it (after the build: it builds nothing here), checked by what
 * it prints: both families' rows of the summary with the leader, the node that took over and the switch-over, the
 * failed node still Ready in Kubernetes, and nothing left behind.
 */
class DemoOnKubernetesIT {

    @BeforeAll
    static void prerequisites() {
        ClusterPrerequisites.check();
    }

    @Test
    void theDemoOnARealClusterShowsEveryStepAndLeavesNothingBehind() throws IOException {
        Path logs = Files.createDirectories(
                Path.of("target", "cluster-logs", "demo").toAbsolutePath());
        CommandResult demo = Shell.run(
                Duration.ofMinutes(8),
                List.of(
                        "env",
                        "LBK8S_DEMO_BUILD=never",
                        UserCluster.REPOSITORY.resolve("demo/run").toString(),
                        "--kubernetes",
                        "--plain",
                        "--logs",
                        logs.toString()));
        String out = demo.stdout();

        assertThat(demo.exitCode()).as(demo.output()).isZero();
        assertThat(out).contains("lbk8s is running").contains("Server Version: v1.34");
        String figures = " +\\d+ m?s +(node-\\d) [0-9a-f:]{17} +(node-\\d) +(node-\\d) +([\\d.]+) (m?s) +\\d+ of \\d+";
        for (String row :
                List.of("IPv4 +whoami +198\\.18\\.\\d+\\.2\\d\\d", "IPv6 +whoami-v6 +fd00:1b8:\\d+::2\\d\\d")) {
            Matcher m = Pattern.compile(row + figures).matcher(out);
            assertThat(m.find()).as("/%s/ in the summary:\n%s", row, out).isTrue();
            assertThat(m.group(2)).as("curl answered by the announcing node").isEqualTo(m.group(1));
            assertThat(m.group(3)).as("another node took over").isNotEqualTo(m.group(1));
            double switchOverMillis =
                    m.group(5).equals("ms") ? Double.parseDouble(m.group(4)) : 1000 * Double.parseDouble(m.group(4));
            System.out.println(row.substring(0, 4) + " switch-over " + switchOverMillis + " ms");
            if (row.startsWith("IPv4")) {
                // The first failure. The second (IPv6: the leader's node frozen a few seconds after another node came
                // back) has been seen to wait 20 s for a node its peers still held back, issue 32 part 3: its time is
                // printed, and is to be asserted once that is fixed.
                assertThat(switchOverMillis).as("switch-over in ms").isLessThan(1000);
            }
        }
        assertThat(out).containsPattern("Node node-\\d in Kubernetes: Ready=True");
        assertThat(out).contains("nothing left behind").containsPattern("Done in [\\d.]+ s\\.");
        String id = Pattern.compile("network ([0-9a-f]{4}),")
                .matcher(out)
                .results()
                .findFirst()
                .orElseThrow()
                .group(1);
        assertThat(Shell.run(Duration.ofSeconds(10), List.of("ip", "netns", "list"))
                        .stdout())
                .doesNotContain("lbk8s-" + id + "-");
    }
}

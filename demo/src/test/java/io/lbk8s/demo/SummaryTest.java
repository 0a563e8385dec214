package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryTest {
    @Test
    void oneRowPerFamilyWithTheMeasuredFigures() {
        var handover = new Handover(
                "node-2", Duration.ofMillis(305), 3, 1, 2, Duration.ofMillis(193), Duration.ofMillis(83), 0);
        var v4 = new FamilyResult(
                "IPv4",
                "whoami",
                "198.18.7.200",
                Duration.ofMillis(157),
                "node-3",
                "02:1b:8a:00:00:03",
                "node-3",
                handover);
        List<String> lines = Summary.table(List.of(v4)).lines("");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("FAMILY  SERVICE  ADDRESS       ASSIGNED IN");
        assertThat(lines.get(1).split("\\s{2,}"))
                .containsExactly(
                        "IPv4",
                        "whoami",
                        "198.18.7.200",
                        "157 ms",
                        "node-3 02:1b:8a:00:00:03",
                        "node-3",
                        "node-2",
                        "305 ms",
                        "1 of 3",
                        "193 ms");
        assertThat(Summary.legend(List.of(v4))).anyMatch(l -> l.contains("every 83 ms"));
    }
}

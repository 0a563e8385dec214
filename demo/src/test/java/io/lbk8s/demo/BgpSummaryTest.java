package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BgpSummaryTest {
    @Test
    void oneRowPerEventWithTheRoutersReactionAndItsTime() {
        var result = new BgpWalkthrough.Result(
                "whoami",
                "198.18.7.200",
                Duration.ofMillis(630),
                new TreeMap<>(Map.of("node-2", 6, "node-1", 6, "node-3", 8)),
                0,
                "node-1",
                Duration.ofMillis(929),
                Duration.ofMillis(2170),
                "node-2",
                Duration.ofMillis(132));

        assertThat(BgpWalkthrough.table(result).lines(""))
                .containsExactly(
                        "WHAT HAPPENED                        WHAT THE ROUTER DID                                    TIME",
                        "Service whoami created               routes 198.18.7.200 over the 3 nodes (ECMP)            630 ms",
                        "20 calls from the remote client      answered by node-1 x6, node-2 x6, node-3 x8; 0 failed  -",
                        "node-1 frozen (SIGSTOP)              dropped its next hop (BFD)                             929 ms",
                        "node-1 thawed (SIGCONT)              took it back                                           2.17 s",
                        "speaker on node-2 stopped (SIGTERM)  dropped its next hop (withdrawn)                       132 ms");
    }

    @Test
    void answersAreCountedPerNodeOrNobody() {
        assertThat(BgpWalkthrough.answersText(Map.of())).isEqualTo("nobody");
        assertThat(BgpWalkthrough.answersText(new TreeMap<>(Map.of("node-3", 2, "node-1", 1))))
                .isEqualTo("node-1 x1, node-3 x2");
    }
}

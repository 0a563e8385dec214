package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HandoverTest {
    static final long T0 = 1_730_000_000_000_000L;

    /** Samples {@code spec} = "node-2@0,fail@40,...": who answered (or fail) at how many ms after T0. */
    static List<Sample> samples(String spec) {
        List<Sample> list = new ArrayList<>();
        for (String item : spec.split(",")) {
            String[] parts = item.split("@");
            long at = T0 + Long.parseLong(parts[1]) * 1000;
            list.add(new Sample(at, parts[0].equals("fail") ? Optional.empty() : Optional.of(parts[0])));
        }
        return list;
    }

    static long ms(long millis) {
        return T0 + millis * 1000;
    }

    @Test
    void measuresFromTheFailureToTheFirstAnswerOfAnotherNode() {
        var samples = samples("node-2@0,node-2@40,node-2@80,fail@300,fail@520,node-3@600,node-3@640,node-3@680");
        Handover h = Handover.analyze(samples, ms(100), "node-2").orElseThrow();
        assertThat(h.newNode()).isEqualTo("node-3");
        assertThat(h.switchOver()).isEqualTo(Duration.ofMillis(500));
        assertThat(h.requests()).isEqualTo(2);
        assertThat(h.failed()).isEqualTo(2);
        assertThat(h.oldNodeAnswers()).isZero();
        // from node-2's last answer at 80 ms to node-3's first at 600 ms
        assertThat(h.longestSilence()).isEqualTo(Duration.ofMillis(520));
        assertThat(h.loopPeriod()).isEqualTo(Duration.ofMillis(40));
        assertThat(h.backToOldNode()).isZero();
    }

    @Test
    void aGracefulHandoverMayLoseNothing() {
        // The old node's kube-proxy still forwards what reaches it until the client's neighbor entry moves.
        var samples = samples("node-1@0,node-1@50,node-1@100,node-1@150,node-2@200,node-2@250");
        Handover h = Handover.analyze(samples, ms(60), "node-1").orElseThrow();
        assertThat(h.switchOver()).isEqualTo(Duration.ofMillis(140));
        assertThat(h.requests()).isEqualTo(2);
        assertThat(h.failed()).isZero();
        assertThat(h.oldNodeAnswers()).isEqualTo(2);
        assertThat(h.longestSilence()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void seesTrafficFlappingBack() {
        var samples = samples("node-1@0,node-2@100,node-1@150,node-2@200");
        assertThat(Handover.analyze(samples, ms(50), "node-1").orElseThrow().backToOldNode())
                .isEqualTo(1);
    }

    @Test
    void emptyWhileNoOtherNodeAnswered() {
        var samples = samples("node-1@0,node-1@100,fail@200");
        assertThat(Handover.analyze(samples, ms(50), "node-1")).isEmpty();
        assertThat(Handover.analyze(List.of(), ms(50), "node-1")).isEmpty();
    }

    @Test
    void answersOfAnotherNodeBeforeTheFailureDoNotCount() {
        var samples = samples("node-2@0,node-1@10,node-1@100,node-2@300");
        assertThat(Handover.analyze(samples, ms(50), "node-1").orElseThrow().switchOver())
                .isEqualTo(Duration.ofMillis(250));
    }
}

package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class SampleTest {
    @Test
    void parsesTheLoopsLines() {
        assertThat(Sample.parse("1730000000.123456 ok node-2"))
                .contains(new Sample(1_730_000_000_123_456L, Optional.of("node-2")));
        assertThat(Sample.parse("1730000000.000001 fail"))
                .contains(new Sample(1_730_000_000_000_001L, Optional.empty()));
    }

    @Test
    void ignoresALineCutShortWhenTheLoopWasStopped() {
        assertThat(Sample.parse("17300000")).isEmpty();
        assertThat(Sample.parse("1730000000.123456 ok")).isEmpty();
        assertThat(Sample.parse("")).isEmpty();
    }
}

package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FormatTest {
    @Test
    void millisecondsBelowASecondSecondsAbove() {
        assertThat(Format.duration(Duration.ofNanos(412_700_000))).isEqualTo("412 ms");
        assertThat(Format.duration(Duration.ofMillis(1_234))).isEqualTo("1.23 s");
        assertThat(Format.seconds(Duration.ofMillis(48_470))).isEqualTo("48.5 s");
    }

    @Test
    void ipv6InItsShortForm() throws Exception {
        assertThat(Format.address(InetAddress.getByName("fd00:1b8:7:0:0:0:0:200")))
                .isEqualTo("fd00:1b8:7::200");
        assertThat(Format.address(InetAddress.getByName("fd00:0:0:1:0:0:0:1")))
                .isEqualTo("fd00:0:0:1::1"); // the longest run
        assertThat(Format.address(InetAddress.getByName("fd00:0:0:1:0:0:1:1")))
                .isEqualTo("fd00::1:0:0:1:1"); // the first of equals
        assertThat(Format.address(InetAddress.getByName("::1"))).isEqualTo("::1");
        assertThat(Format.address(InetAddress.getByName("fd00:1:2:3:4:5:0:7"))).isEqualTo("fd00:1:2:3:4:5:0:7");
        assertThat(Format.address(InetAddress.getByName("198.18.7.200"))).isEqualTo("198.18.7.200");
    }
}

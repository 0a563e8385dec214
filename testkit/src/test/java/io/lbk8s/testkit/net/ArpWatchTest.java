package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArpWatchTest {
    static final String CAPTURE = """
      tcpdump: verbose output suppressed, use -v[v]... for full protocol decode
      listening on eth0, link-type EN10MB (Ethernet), snapshot length 262144 bytes
      1764757200.100000 02:1b:8a:00:00:64 > ff:ff:ff:ff:ff:ff, ethertype ARP (0x0806), length 42: Request who-has 198.18.7.200 tell 198.18.7.100, length 28
      1764757200.100020 02:1b:8a:00:00:03 > 02:1b:8a:00:00:64, ethertype ARP (0x0806), length 42: Reply 198.18.7.200 is-at 02:1b:8a:00:00:03, length 28
      1764757200.150020 02:1b:8a:00:00:02 > 02:1b:8a:00:00:64, ethertype ARP (0x0806), length 42: Reply 198.18.7.201 is-at 02:1b:8a:00:00:02, length 28
      1764757200.400000 02:1b:8a:00:00:02 > ff:ff:ff:ff:ff:ff, ethertype ARP (0x0806), length 42: Request who-has 198.18.7.200 tell 198.18.7.200, length 28
      1764757200.400010 02:1b:8a:00:00:02 > ff:ff:ff:ff:ff:ff, ethertype ARP (0x0806), length 42: Reply 198.18.7.200 is-at 02:1b:8a:00:00:02, length 28
      1764757200.450010 02:1b:8a:00:00:03 > 02:1b:8a:00:00:64, ethertype ARP (0x0806), length 42: Reply 198.18.7.200 is-at 02:1b:8a:00:00:03, length 28
      """;

    @Test
    void repliesAndGratuitousRequestsForTheAddressAreAnswers() {
        List<ArpWatch.Answer> answers = ArpWatch.parse(CAPTURE, "198.18.7.200");
        assertThat(answers)
                .containsExactly(
                        new ArpWatch.Answer(1764757200_100020L, "02:1b:8a:00:00:03", "198.18.7.200"),
                        new ArpWatch.Answer(1764757200_400000L, "02:1b:8a:00:00:02", "198.18.7.200"),
                        new ArpWatch.Answer(1764757200_400010L, "02:1b:8a:00:00:02", "198.18.7.200"),
                        new ArpWatch.Answer(1764757200_450010L, "02:1b:8a:00:00:03", "198.18.7.200"));
        assertThat(ArpWatch.macs(answers)).containsExactly("02:1b:8a:00:00:03", "02:1b:8a:00:00:02");
    }

    @Test
    void twoMacsWithinTheWindowAreAnOverlap() {
        List<ArpWatch.Answer> answers = ArpWatch.parse(CAPTURE, "198.18.7.200");
        assertThat(ArpWatch.overlaps(answers, Duration.ofMillis(100)))
                .singleElement()
                .satisfies(o -> {
                    assertThat(o.first().mac()).isEqualTo("02:1b:8a:00:00:02");
                    assertThat(o.second().mac()).isEqualTo("02:1b:8a:00:00:03");
                });
        assertThat(ArpWatch.overlaps(answers, Duration.ofMillis(50))).isEmpty();
        assertThat(ArpWatch.overlaps(answers.subList(0, 3), Duration.ofSeconds(1)))
                .hasSize(1);
    }

    @Test
    void aGratuitousRequestWithABroadcastTargetMacCounts() {
        // arping -U (iputils) fills the target MAC with ff:ff:ff:ff:ff:ff, which tcpdump prints after the address
        String capture =
                "1764757201.000001 02:1b:8a:00:00:f1 > ff:ff:ff:ff:ff:ff, ethertype ARP (0x0806), length 42: Request who-has"
                        + " 198.18.7.206 (ff:ff:ff:ff:ff:ff) tell 198.18.7.206, length 28\n";
        assertThat(ArpWatch.parse(capture, "198.18.7.206"))
                .containsExactly(new ArpWatch.Answer(1764757201_000001L, "02:1b:8a:00:00:f1", "198.18.7.206"));
    }
}

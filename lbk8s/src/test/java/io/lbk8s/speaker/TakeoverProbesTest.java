package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the probe before a takeover concludes, with the LAN's answers (or the probe's failure) given by the test. */
class TakeoverProbesTest {
    static final LinkInfo ETH0 =
            new LinkInfo("eth0", 2, MacAddress.parse("02:00:00:00:00:01"), true, false, Optional.empty(), List.of());
    static final IpAddress VIP = IpAddress.parse("198.18.0.200").orElseThrow();
    static final IpAddress OTHER_VIP = IpAddress.parse("198.18.0.201").orElseThrow();
    static final MacAddress HOST = MacAddress.parse("02:00:00:00:00:99");
    static final Duration PROBE = Duration.ofMillis(30);

    /** The outcomes of the next probes, in order: a map of answers, or null for a probe that cannot run. */
    final Deque<Optional<Map<IpAddress, MacAddress>>> lan = new ArrayDeque<>();

    final TakeoverProbes probes = new TakeoverProbes(
            new SpeakerMetrics(new SimpleMeterRegistry(), "node-1"),
            PROBE,
            (link, ips, ours, wait) -> lan.removeFirst()
                    .orElseThrow(() -> new IOException("cannot receive on the raw socket on eth0: Network is down")));

    private TakeoverProbes.Verdict probe(Set<IpAddress> fresh) {
        return probes.probe(ETH0, fresh, fresh, Set.of(ETH0.mac()));
    }

    @Test
    void anAddressNobodyAnswersForIsTaken() {
        lan.add(Optional.of(Map.of()));
        TakeoverProbes.Verdict verdict = probe(Set.of(VIP));
        assertThat(verdict.contested()).isEmpty();
        assertThat(verdict.unprobed()).isEmpty();
        assertThat(verdict.retryAfter()).isEmpty();
    }

    @Test
    void anAddressAnotherMacAnswersForIsLeftAndAskedAgainAfterADoublingPause() {
        lan.add(Optional.of(Map.of(VIP, HOST)));
        lan.add(Optional.of(Map.of(VIP, HOST)));
        lan.add(Optional.of(Map.of(VIP, HOST)));
        List<Optional<Duration>> pauses = List.of(
                probe(Set.of(VIP)).retryAfter(),
                probe(Set.of(VIP)).retryAfter(),
                probe(Set.of(VIP)).retryAfter());
        assertThat(pauses)
                .containsExactly(
                        Optional.of(Duration.ofMillis(50)),
                        Optional.of(Duration.ofMillis(100)),
                        Optional.of(Duration.ofMillis(200)));
        lan.add(Optional.of(Map.of(VIP, HOST)));
        assertThat(probe(Set.of(VIP, OTHER_VIP)).contested()).isEqualTo(Map.of(VIP, HOST));
    }

    /** The interface went down between the plan and the probe: no host is blamed, so no conflict is reported. */
    @Test
    void aProbeThatCannotRunTakesNothingAndBlamesNobody() {
        lan.add(Optional.empty());
        lan.add(Optional.empty());
        TakeoverProbes.Verdict first = probe(Set.of(VIP, OTHER_VIP));
        assertThat(first.contested()).as("no MAC answered").isEmpty();
        assertThat(first.unprobed()).containsExactlyInAnyOrder(VIP, OTHER_VIP);
        assertThat(first.retryAfter()).contains(Duration.ofMillis(50));
        assertThat(probe(Set.of(VIP)).retryAfter()).as("failing again").contains(Duration.ofMillis(100));

        lan.add(Optional.of(Map.of()));
        TakeoverProbes.Verdict recovered = probe(Set.of(VIP));
        assertThat(recovered.unprobed()).isEmpty();
        assertThat(recovered.retryAfter()).isEmpty();
        lan.add(Optional.empty());
        assertThat(probe(Set.of(VIP)).retryAfter())
                .as("the pause starts over after a probe that ran")
                .contains(Duration.ofMillis(50));
    }

    @Test
    void withProbesOffNothingIsAsked() {
        TakeoverProbes off = new TakeoverProbes(
                new SpeakerMetrics(new SimpleMeterRegistry(), "node-1"), Duration.ZERO, (link, ips, ours, wait) -> {
                    throw new AssertionError("asked the LAN");
                });
        assertThat(off.probe(ETH0, Set.of(VIP), Set.of(VIP), Set.of()).contested())
                .isEmpty();
    }
}

package io.lbk8s.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict.Phase;
import io.lbk8s.conflict.ConflictWatch.Action;
import io.lbk8s.conflict.ConflictWatch.Clear;
import io.lbk8s.conflict.ConflictWatch.Defend;
import io.lbk8s.conflict.ConflictWatch.Report;
import io.lbk8s.conflict.ConflictWatch.Withdraw;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conflict state machine as a table: each case is a sequence of steps (what a probe or the listener heard, at
 * which millisecond, whether this node leads the address) and what the speaker must do, step by step, and at the
 * end whether it may announce the address and when it probes next.
 */
class ConflictWatchTest {
    static final IpAddress IP = IpAddress.parse("198.18.7.200").orElseThrow();
    static final String FOREIGN = "02:00:00:00:0f:01";
    static final String OTHER = "02:00:00:00:0f:02";
    static final Instant T0 = Instant.parse("2026-12-03T22:00:00Z");

    /** @param heard a claim heard by the listener (else a probe's result); {@code mac} null: nobody answered */
    record Step(long atMillis, boolean heard, String mac, boolean leads, List<String> expected) {}

    static Step probe(long at, String mac, String... expected) {
        return new Step(at, false, mac, true, List.of(expected));
    }

    static Step probeNotLed(long at, String mac, String... expected) {
        return new Step(at, false, mac, false, List.of(expected));
    }

    static Step heard(long at, String mac, String... expected) {
        return new Step(at, true, mac, true, List.of(expected));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "a quiet probe of an address without conflict does nothing",
                        List.of(probe(0, null)),
                        true,
                        Optional.empty()),
                Arguments.of(
                        "answered at probe time: reported, not announced, probed again after 50 ms",
                        List.of(probe(0, FOREIGN, "Report Probe " + FOREIGN + " first")),
                        false,
                        Optional.of(50L)),
                Arguments.of(
                        "still answered: the backoff doubles, no new report before the refresh",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(50, FOREIGN),
                                probe(150, FOREIGN)),
                        false,
                        Optional.of(150L + 200)),
                Arguments.of(
                        "the backoff is capped at 2 s",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(1, FOREIGN),
                                probe(2, FOREIGN),
                                probe(3, FOREIGN),
                                probe(4, FOREIGN),
                                probe(5, FOREIGN),
                                probe(6, FOREIGN),
                                probe(7, FOREIGN)),
                        false,
                        Optional.of(7L + 2000)),
                Arguments.of(
                        "refreshed every 30 s while it lasts",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(29_999, FOREIGN),
                                probe(30_000, FOREIGN, "Report Probe " + FOREIGN)),
                        false,
                        Optional.of(30_000L + 200)),
                Arguments.of(
                        "another MAC answering is reported at once",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(50, OTHER, "Report Probe " + OTHER)),
                        false,
                        Optional.of(150L)),
                Arguments.of(
                        "three quiet probes in a row clear it: announced again",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(50, null),
                                probe(250, null),
                                probe(450, null, "Clear Probe " + FOREIGN)),
                        true,
                        Optional.empty()),
                Arguments.of(
                        "an answer between quiet probes starts the count again",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probe(50, null),
                                probe(250, null),
                                probe(450, FOREIGN),
                                probe(550, null),
                                probe(750, null)),
                        false,
                        Optional.of(950L)),
                Arguments.of(
                        "not led any more: probed every 5 s, and still cleared",
                        List.of(
                                probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"),
                                probeNotLed(50, FOREIGN),
                                probeNotLed(5050, null),
                                probeNotLed(10_050, null),
                                probeNotLed(15_050, null, "Clear Probe " + FOREIGN)),
                        true,
                        Optional.empty()),
                Arguments.of(
                        "not led and quiet: next probe in 5 s",
                        List.of(probe(0, FOREIGN, "Report Probe " + FOREIGN + " first"), probeNotLed(50, null)),
                        false,
                        Optional.of(5050L)),
                Arguments.of(
                        "heard while announced: reported and defended once, still announced",
                        List.of(heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend")),
                        true,
                        Optional.of(200L)),
                Arguments.of(
                        "the other host answers again within 10 s of the defence: withdrawn",
                        List.of(
                                heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend"),
                                probe(200, FOREIGN, "Report Announced " + FOREIGN, "Withdraw " + FOREIGN)),
                        false,
                        Optional.of(300L)),
                Arguments.of(
                        "a second claim heard within 10 s withdraws too",
                        List.of(
                                heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend"),
                                heard(9_000, FOREIGN, "Report Announced " + FOREIGN, "Withdraw " + FOREIGN)),
                        false,
                        Optional.of(9_100L)),
                Arguments.of(
                        "a claim long after the defence is defended again",
                        List.of(
                                heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend"),
                                heard(10_001, FOREIGN, "Report Announced " + FOREIGN, "Defend")),
                        true,
                        Optional.of(10_201L)),
                Arguments.of(
                        "the defence worked (quiet afterwards): cleared while still announced",
                        List.of(
                                heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend"),
                                probe(200, null),
                                probe(400, null),
                                probe(600, null, "Clear Announced " + FOREIGN)),
                        true,
                        Optional.empty()),
                Arguments.of(
                        "withdrawn, then the other host leaves: cleared and announced again",
                        List.of(
                                heard(0, FOREIGN, "Report Announced " + FOREIGN + " first", "Defend"),
                                probe(200, FOREIGN, "Report Announced " + FOREIGN, "Withdraw " + FOREIGN),
                                probe(250, null),
                                probe(450, null),
                                probe(650, null, "Clear Announced " + FOREIGN)),
                        true,
                        Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void actsAsTheTableSays(String name, List<Step> steps, boolean mayAnnounce, Optional<Long> nextProbeMillis) {
        ConflictWatch watch = new ConflictWatch();
        for (Step step : steps) {
            Instant at = T0.plusMillis(step.atMillis());
            List<Action> actions = step.heard()
                    ? watch.heard(IP, step.mac(), at)
                    : watch.probed(IP, Optional.ofNullable(step.mac()), at, step.leads());
            assertThat(describe(actions)).as("at %d ms", step.atMillis()).containsExactlyElementsOf(step.expected());
        }
        assertThat(watch.mayAnnounce(IP)).as("may announce").isEqualTo(mayAnnounce);
        assertThat(watch.nextProbe().map(t -> Duration.between(T0, t).toMillis()))
                .as("next probe")
                .isEqualTo(nextProbeMillis);
    }

    static List<String> describe(List<Action> actions) {
        List<String> text = new ArrayList<>();
        for (Action action : actions) {
            text.add(
                    switch (action) {
                        case Report r -> "Report " + r.phase() + " " + r.mac() + (r.first() ? " first" : "");
                        case Defend d -> "Defend";
                        case Withdraw w -> "Withdraw " + w.mac();
                        case Clear c -> "Clear " + c.phase() + " " + c.mac();
                    });
        }
        return text;
    }

    @org.junit.jupiter.api.Test
    void aReportKeepsWhenTheConflictBeganAndWhenItWasLastSeen() {
        ConflictWatch watch = new ConflictWatch();
        watch.probed(IP, Optional.of(FOREIGN), T0, true);
        List<Action> later = watch.probed(IP, Optional.of(FOREIGN), T0.plusSeconds(31), true);
        assertThat(later).containsExactly(new Report(IP, Phase.Probe, FOREIGN, T0, T0.plusSeconds(31), false));
        assertThat(watch.dueAt(T0.plusSeconds(31).plusMillis(99))).isEmpty();
        assertThat(watch.dueAt(T0.plusSeconds(31).plusMillis(100))).containsExactly(IP);
        watch.forget(IP);
        assertThat(watch.mayAnnounce(IP)).isTrue();
        assertThat(watch.entries()).isEmpty();
    }
}

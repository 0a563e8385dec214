package io.lbk8s.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict.Phase;
import io.lbk8s.conflict.ConflictPolicy.Decision;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ConflictPolicyTest {

    private static final Instant NOW = Instant.parse("2026-12-03T22:00:00Z");

    private static AddressConflict conflict(Phase phase) {
        return new AddressConflict(
                IpAddress.parse("192.168.1.240").orElseThrow(),
                "52:54:00:aa:bb:cc",
                "node-a",
                phase,
                Optional.empty(),
                NOW,
                NOW,
                "");
    }

    static Stream<Arguments> decisions() {
        return Stream.of(
                // phase, requested, annotation, moved?
                Arguments.of(Phase.Probe, false, null, true),
                Arguments.of(Phase.Announced, false, null, false),
                Arguments.of(Phase.Probe, false, ConflictPolicy.KEEP, false),
                Arguments.of(Phase.Announced, false, ConflictPolicy.MOVE, true),
                Arguments.of(Phase.Announced, false, ConflictPolicy.KEEP, false),
                Arguments.of(Phase.Probe, false, ConflictPolicy.MOVE, true),
                Arguments.of(Phase.Probe, true, null, false),
                Arguments.of(Phase.Probe, true, ConflictPolicy.MOVE, false),
                Arguments.of(Phase.Announced, true, ConflictPolicy.MOVE, false));
    }

    @ParameterizedTest(name = "{0}, requested={1}, annotation={2} -> moved={3}")
    @MethodSource("decisions")
    void movesOnlyWhatItChoseAndNeverReached(Phase phase, boolean requested, ConflictPolicy chosen, boolean moved) {
        Decision decision = ConflictPolicy.decide(conflict(phase), requested, Optional.ofNullable(chosen));

        assertThat(decision).isInstanceOf(moved ? Decision.Move.class : Decision.Keep.class);
        assertThat(decision.why()).isNotBlank();
    }

    @ParameterizedTest
    @ValueSource(strings = {"keep", "KEEP", " move "})
    void acceptsKeepAndMoveInAnyCase(String value) {
        assertThat(ConflictPolicy.parse(Optional.of(value))).isInstanceOf(ConflictPolicy.Parsed.Chosen.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "stay", "moved", "true"})
    void saysWhatItAcceptsOtherwise(String value) {
        assertThat(ConflictPolicy.parse(Optional.of(value)))
                .isInstanceOfSatisfying(
                        ConflictPolicy.Parsed.Invalid.class,
                        invalid -> assertThat(invalid.message())
                                .contains(ConflictPolicy.ANNOTATION, "keep or move", "\"" + value + "\""));
    }

    @ParameterizedTest
    @NullSource
    void noAnnotationIsTheDefault(String none) {
        assertThat(ConflictPolicy.parse(Optional.ofNullable(none)))
                .isEqualTo(new ConflictPolicy.Parsed.Chosen(Optional.empty()));
    }

    @ParameterizedTest(name = "seen {0} s ago: live={1}")
    @MethodSource("ages")
    void aConflictNotRefreshedForTwoMinutesIsStale(long secondsAgo, boolean live) {
        AddressConflict seen = conflict(Phase.Announced);
        assertThat(seen.liveAt(NOW.plus(Duration.ofSeconds(secondsAgo)))).isEqualTo(live);
    }

    static Stream<Arguments> ages() {
        return Stream.of(
                Arguments.of(0, true),
                Arguments.of(30, true),
                Arguments.of(119, true),
                Arguments.of(120, false),
                Arguments.of(3600, false));
    }
}

package io.lbk8s.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ElectorTest {
    static final ElectionSettings SETTINGS = ElectionSettings.DEFAULTS; // lease 3s, renew deadline 2s, retry 500ms
    static final String SELF = "lbk8s-controller-a";
    static final String OTHER = "lbk8s-controller-b";
    static final long T0 = 1_000_000_000_000L; // monotonic clocks start anywhere

    static long at(long millis) {
        return T0 + Duration.ofMillis(millis).toNanos();
    }

    static LeaseRecord held(String holder, String renewTime) {
        return new LeaseRecord(holder, "2024-05-01T10:00:00.000000Z", renewTime, 3, 1, "17");
    }

    static Optional<Observed> seen(LeaseRecord lease, long atMillis) {
        return Optional.of(Observed.first(Optional.of(lease), at(atMillis)));
    }

    static final Optional<Long> FOLLOWER = Optional.empty();

    static Optional<Long> renewedAt(long millis) {
        return Optional.of(at(millis));
    }

    record Case(
            String name,
            Optional<Observed> observed,
            Optional<Long> lastRenewed,
            long nowMillis,
            Class<? extends Decision> expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        LeaseRecord other = held(OTHER, "2024-05-01T10:00:02.000000Z");
        LeaseRecord mine = held(SELF, "2024-05-01T10:00:02.000000Z");
        LeaseRecord released = held("", "2024-05-01T10:00:02.000000Z");
        return Stream.of(
                new Case("nothing read yet: wait", Optional.empty(), FOLLOWER, 0, Decision.Follow.class),
                new Case(
                        "no Lease object: create it",
                        Optional.of(Observed.first(Optional.empty(), at(0))),
                        FOLLOWER,
                        0,
                        Decision.Acquire.class),
                new Case("a released Lease is taken at once", seen(released, 0), FOLLOWER, 0, Decision.Acquire.class),
                new Case("another holder, just seen: follow", seen(other, 0), FOLLOWER, 0, Decision.Follow.class),
                new Case(
                        "another holder, unchanged for less than the lease: follow",
                        seen(other, 0),
                        FOLLOWER,
                        2_999,
                        Decision.Follow.class),
                new Case(
                        "another holder, unchanged for the lease: take over",
                        seen(other, 0),
                        FOLLOWER,
                        3_000,
                        Decision.Acquire.class),
                new Case(
                        "a holder that declares a longer lease keeps it longer",
                        Optional.of(Observed.first(Optional.of(new LeaseRecord(OTHER, "", "", 15, 1, "17")), at(0))),
                        FOLLOWER,
                        14_000,
                        Decision.Follow.class),
                new Case("we hold it and lead: renew", seen(mine, 0), renewedAt(0), 500, Decision.Renew.class),
                new Case(
                        "we hold it but do not lead (restarted with the same name): renew",
                        seen(mine, 0),
                        FOLLOWER,
                        500,
                        Decision.Renew.class),
                new Case(
                        "leading, last renewal just under the deadline: renew",
                        seen(mine, 0),
                        renewedAt(0),
                        1_999,
                        Decision.Renew.class),
                new Case(
                        "leading, no renewal for the renew deadline: stop",
                        seen(mine, 0),
                        renewedAt(0),
                        2_000,
                        Decision.StopLeading.class),
                new Case(
                        "leading, no read ever succeeded and the deadline passed: stop",
                        Optional.empty(),
                        renewedAt(0),
                        2_500,
                        Decision.StopLeading.class),
                new Case(
                        "leading, but another holder wrote the Lease: stop at once",
                        seen(other, 400),
                        renewedAt(0),
                        500,
                        Decision.StopLeading.class));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void decides(Case c) {
        assertThat(Elector.decide(SETTINGS, SELF, c.observed(), c.lastRenewed(), at(c.nowMillis())))
                .isInstanceOf(c.expected());
    }

    /** A follower reading every retry period while the holder writes (or does not) what {@code renewTimes} says. */
    static Decision followReads(String... renewTimes) {
        Optional<Observed> observed = Optional.empty();
        Decision last = null;
        for (int read = 0; read < renewTimes.length; read++) {
            long now = at(read * SETTINGS.retryPeriod().toMillis());
            LeaseRecord lease = new LeaseRecord(OTHER, renewTimes[0], renewTimes[read], 3, 1, renewTimes[read]);
            observed = Optional.of(
                    observed.map(o -> o.next(Optional.of(lease), now)).orElse(Observed.first(Optional.of(lease), now)));
            last = Elector.decide(SETTINGS, SELF, observed, FOLLOWER, now);
            if (last instanceof Decision.Acquire) {
                return last;
            }
        }
        return last;
    }

    @Test
    void aHolderWhoseClockIsYearsBehindButKeepsRenewingIsNeverTakenOver() {
        String[] renewals = Stream.iterate(0, i -> i + 1)
                .limit(40)
                .map(i -> "1999-01-01T00:00:%02d.000000Z".formatted(i))
                .toArray(String[]::new);
        assertThat(followReads(renewals)).isInstanceOf(Decision.Follow.class);
    }

    @Test
    void aHolderWhoseClockIsYearsAheadButStoppedRenewingIsTakenOverAfterTheLease() {
        String stuck = "2099-01-01T00:00:00.000000Z";
        String[] sixReads = {stuck, stuck, stuck, stuck, stuck, stuck}; // 2.5 s unchanged
        assertThat(followReads(sixReads)).isInstanceOf(Decision.Follow.class);
        String[] sevenReads = {stuck, stuck, stuck, stuck, stuck, stuck, stuck}; // 3 s unchanged
        assertThat(followReads(sevenReads)).isInstanceOf(Decision.Acquire.class);
    }

    @Test
    void aLeaseFirstSeenWithAnAncientRenewTimeStillGetsAFullLeaseDuration() {
        LeaseRecord ancient = held(OTHER, "1970-01-01T00:00:00.000000Z");
        Optional<Observed> observed = Optional.of(Observed.first(Optional.of(ancient), at(0)));
        assertThat(Elector.decide(SETTINGS, SELF, observed, FOLLOWER, at(2_500)))
                .isInstanceOf(Decision.Follow.class);
        assertThat(Elector.decide(SETTINGS, SELF, observed, FOLLOWER, at(3_000)))
                .isInstanceOf(Decision.Acquire.class);
    }

    @Test
    void anUnchangedReadKeepsTheTimeOfTheLastChange() {
        LeaseRecord lease = held(OTHER, "2024-05-01T10:00:02.000000Z");
        Observed first = Observed.first(Optional.of(lease), at(0));
        assertThat(first.next(Optional.of(held(OTHER, "2024-05-01T10:00:02.000000Z")), at(900)))
                .isSameAs(first);
        assertThat(first.next(Optional.of(held(OTHER, "2024-05-01T10:00:03.000000Z")), at(900))
                        .changedAtNanos())
                .isEqualTo(at(900));
    }

    record BadSettings(Duration lease, Duration renewDeadline, Duration retry, String says) {}

    static Stream<BadSettings> badSettings() {
        return Stream.of(
                new BadSettings(
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(2),
                        Duration.ofMillis(500),
                        "the renew deadline (2000ms) must be shorter than the lease duration (2000ms)"),
                new BadSettings(
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(5),
                        Duration.ofMillis(500),
                        "the renew deadline (5000ms) must be shorter than the lease duration (3000ms)"),
                new BadSettings(
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(2),
                        "the retry period (2000ms) must be shorter than the renew deadline (2000ms)"),
                new BadSettings(
                        Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ZERO, "must all be longer than 0"));
    }

    @ParameterizedTest
    @MethodSource("badSettings")
    void refusesSettingsWhereALeaderCouldOutliveItsLease(BadSettings bad) {
        assertThatThrownBy(() -> new ElectionSettings(bad.lease(), bad.renewDeadline(), bad.retry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(bad.says());
    }

    @Test
    void theLeaseDurationIsWrittenInWholeSecondsRoundedUp() {
        assertThat(ElectionSettings.DEFAULTS.leaseDurationSeconds()).isEqualTo(3);
        assertThat(new ElectionSettings(Duration.ofMillis(1_200), Duration.ofMillis(700), Duration.ofMillis(100))
                        .leaseDurationSeconds())
                .isEqualTo(2);
    }
}

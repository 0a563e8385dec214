package io.lbk8s.bfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One session against a scripted peer, times in milliseconds from 0; random 0 means no jitter. */
class StateMachineTest {

    static final long MS = 1_000_000;
    static final int LOCAL = 0x1111;
    static final int PEER = 0x2222;

    /** A packet from the peer as FRR sends it: 300 ms both ways while Up, 1 s desired TX before. */
    static BfdPacket fromPeer(BfdState state, boolean poll, boolean fin) {
        long tx = state == BfdState.UP ? 300_000 : 1_000_000;
        return new BfdPacket(Diagnostic.NONE, state, poll, fin, false, false, 3, PEER, LOCAL, tx, 300_000, 50_000);
    }

    static BfdPacket fromPeer(BfdState state) {
        return fromPeer(state, false, false);
    }

    static Step received(Step step, BfdPacket packet, long atMillis) {
        return StateMachine.on(step.variables(), new BfdEvent.Received(packet), atMillis * MS, 0);
    }

    static Step timer(Step step, long atMillis, double random) {
        return StateMachine.on(step.variables(), new BfdEvent.TimerFired(), atMillis * MS, random);
    }

    static Step up() {
        Step step = timer(StateMachine.start(BfdSettings.DEFAULTS, LOCAL, 0, 0), 0, 0);
        step = received(step, fromPeer(BfdState.INIT), 10);
        assertThat(step.variables().state()).isEqualTo(BfdState.UP);
        return step;
    }

    @Test
    void anActiveSessionSendsDownAtOnceThenOnceASecond() {
        Step start = StateMachine.start(BfdSettings.DEFAULTS, LOCAL, 0, 0);
        assertThat(start.variables().state()).isEqualTo(BfdState.DOWN);
        assertThat(start.nextDeadlineNanos()).isZero();

        Step first = timer(start, 0, 0);
        assertThat(first.send())
                .containsExactly(new BfdPacket(
                        Diagnostic.NONE,
                        BfdState.DOWN,
                        false,
                        false,
                        false,
                        false,
                        3,
                        LOCAL,
                        0,
                        1_000_000,
                        300_000,
                        0));
        assertThat(first.nextDeadlineNanos()).isEqualTo(1000 * MS);
        assertThat(timer(first, 999, 0).send()).isEmpty();
        assertThat(timer(first, 1000, 0).send()).hasSize(1);
    }

    @Test
    void aPassiveSessionWaitsForThePeersFirstPacket() {
        BfdSettings passive = new BfdSettings(Duration.ofMillis(300), Duration.ofMillis(300), 3, true, 254);
        Step start = StateMachine.start(passive, LOCAL, 0, 0);
        assertThat(start.nextDeadlineNanos()).isEqualTo(SessionVariables.NEVER);
        assertThat(timer(start, 5000, 0).send()).isEmpty();

        Step heard = received(start, fromPeer(BfdState.DOWN), 6000);
        assertThat(heard.variables().state()).isEqualTo(BfdState.INIT);
        assertThat(heard.nextDeadlineNanos()).isEqualTo(6000 * MS);
        assertThat(timer(heard, 6000, 0).send()).extracting(BfdPacket::state).containsExactly(BfdState.INIT);
    }

    @ParameterizedTest(name = "{0} + peer {1} -> {2} ({3})")
    @CsvSource({
        "DOWN, DOWN,       INIT, NONE",
        "DOWN, INIT,       UP,   NONE",
        "DOWN, UP,         DOWN, NONE",
        "DOWN, ADMIN_DOWN, DOWN, NONE",
        "INIT, DOWN,       INIT, NONE",
        "INIT, INIT,       UP,   NONE",
        "INIT, UP,         UP,   NONE",
        "INIT, ADMIN_DOWN, DOWN, NEIGHBOR_SIGNALED_SESSION_DOWN",
        "UP,   DOWN,       DOWN, NEIGHBOR_SIGNALED_SESSION_DOWN",
        "UP,   INIT,       UP,   NONE",
        "UP,   UP,         UP,   NONE",
        "UP,   ADMIN_DOWN, DOWN, NEIGHBOR_SIGNALED_SESSION_DOWN",
    })
    void theTransitionsOfSection686(BfdState from, BfdState peer, BfdState to, Diagnostic diagnostic) {
        Step step = StateMachine.start(BfdSettings.DEFAULTS, LOCAL, 0, 0);
        if (from != BfdState.DOWN) {
            step = received(step, fromPeer(BfdState.DOWN), 1);
        }
        if (from == BfdState.UP) {
            step = received(step, fromPeer(BfdState.UP), 2);
        }
        assertThat(step.variables().state()).isEqualTo(from);

        Step after = received(step, fromPeer(peer), 3);
        assertThat(after.variables().state()).isEqualTo(to);
        assertThat(after.variables().local().diagnostic()).isEqualTo(diagnostic);
    }

    @Test
    void goingUpSpeedsUpToTheProfilesIntervalThroughAPollSequence() {
        Step up = up();
        assertThat(up.variables().timers().nextTransmitNanos())
                .as("next packet within 300 ms, not 1 s")
                .isEqualTo(310 * MS);

        Step polled = timer(up, 310, 0);
        assertThat(polled.send()).singleElement().satisfies(p -> {
            assertThat(p.state()).isEqualTo(BfdState.UP);
            assertThat(p.poll()).as("P bit").isTrue();
            assertThat(p.desiredMinTxMicros()).isEqualTo(300_000);
        });
        Step confirmed = received(polled, fromPeer(BfdState.UP, false, true), 320);
        assertThat(confirmed.variables().local().polling()).isFalse();
        assertThat(timer(confirmed, 610, 0).send())
                .singleElement()
                .satisfies(p -> assertThat(p.poll()).isFalse());
    }

    @Test
    void aPollFromThePeerIsAnsweredAtOnceWithFinal() {
        Step answered = received(up(), fromPeer(BfdState.UP, true, false), 50);
        assertThat(answered.send()).singleElement().satisfies(p -> {
            assertThat(p.fin()).isTrue();
            assertThat(p.poll()).isFalse();
            assertThat(p.yourDiscriminator()).isEqualTo(PEER);
        });
    }

    @Test
    void aSilentPeerIsDownAfterThreeTimesItsInterval() {
        Step up = received(up(), fromPeer(BfdState.UP), 100);
        long deadline = up.variables().timers().detectionDeadlineNanos();
        assertThat(deadline).as("3 x max(300 ms, 300 ms) after the last packet").isEqualTo(1000 * MS);

        Step stillUp = timer(up, 999, 0);
        assertThat(stillUp.variables().state()).isEqualTo(BfdState.UP);
        Step down = timer(stillUp, 1000, 0);
        assertThat(down.variables().state()).isEqualTo(BfdState.DOWN);
        assertThat(down.variables().local().diagnostic()).isEqualTo(Diagnostic.CONTROL_DETECTION_TIME_EXPIRED);
        assertThat(down.variables().remote().discriminator())
                .as("forgotten, RFC 5880 6.8.1")
                .isZero();
        Step told = timer(down, down.nextDeadlineNanos() / MS, 0);
        assertThat(told.send())
                .as("the next packet tells the peer why")
                .extracting(BfdPacket::state, BfdPacket::diagnostic, BfdPacket::yourDiscriminator)
                .containsExactly(tuple(BfdState.DOWN, Diagnostic.CONTROL_DETECTION_TIME_EXPIRED, 0));
    }

    @Test
    void theDetectionTimeFollowsTheSlowerOfOurRxAndTheirTx() {
        BfdPacket slowPeer =
                new BfdPacket(Diagnostic.NONE, BfdState.DOWN, false, false, false, false, 5, PEER, 0, 2_000_000, 1, 0);
        Step step = received(StateMachine.start(BfdSettings.DEFAULTS, LOCAL, 0, 0), slowPeer, 0);
        assertThat(step.variables().timers().detectionDeadlineNanos()).isEqualTo(10_000 * MS);
    }

    @ParameterizedTest(name = "multiplier {0}, random {1}: {2} ms")
    @CsvSource({"3, 0.0, 300", "3, 0.5, 262", "3, 0.9999, 225", "1, 0.0, 270", "1, 0.9999, 225"})
    void jitterShortensTheIntervalBySection687(int multiplier, double random, long millis) {
        BfdSettings settings = new BfdSettings(Duration.ofMillis(300), Duration.ofMillis(300), multiplier, false, 254);
        SessionVariables v = SessionVariables.initial(settings, LOCAL);
        assertThat(StateMachine.jittered(v, 300_000, random) / 1000).isEqualTo(millis);
    }

    @Test
    void aPeerAskingForNoPacketsGetsNone() {
        BfdPacket quiet =
                new BfdPacket(Diagnostic.NONE, BfdState.DOWN, false, false, false, false, 3, PEER, 0, 1_000_000, 0, 0);
        Step step = received(StateMachine.start(BfdSettings.DEFAULTS, LOCAL, 0, 0), quiet, 0);
        assertThat(step.variables().timers().nextTransmitNanos()).isEqualTo(SessionVariables.NEVER);
        assertThat(timer(step, 2000, 0).send()).isEmpty();
    }

    @Test
    void stoppingSendsAdminDownOnceAndIgnoresThePeerAfterwards() {
        Step stopped = StateMachine.on(up().variables(), new BfdEvent.Stopped(), 20 * MS, 0);
        assertThat(stopped.send()).singleElement().satisfies(p -> {
            assertThat(p.state()).isEqualTo(BfdState.ADMIN_DOWN);
            assertThat(p.diagnostic()).isEqualTo(Diagnostic.ADMINISTRATIVELY_DOWN);
        });
        assertThat(stopped.nextDeadlineNanos()).isEqualTo(SessionVariables.NEVER);
        Step after = received(stopped, fromPeer(BfdState.UP), 30);
        assertThat(after.variables().state()).isEqualTo(BfdState.ADMIN_DOWN);
        assertThat(after.send()).isEmpty();
    }

    @Test
    void slowerIntervalsWhileUpKeepTheFasterRateUntilThePeerConfirms() {
        Step confirmed = received(timer(up(), 310, 0), fromPeer(BfdState.UP, false, true), 320);
        BfdSettings slower = new BfdSettings(Duration.ofMillis(500), Duration.ofMillis(500), 3, false, 254);
        Step changed = StateMachine.on(confirmed.variables(), new BfdEvent.Reconfigured(slower), 330 * MS, 0);
        assertThat(changed.variables().local().polling()).isTrue();
        assertThat(changed.variables().local().advertised().desiredMinTxMicros())
                .isEqualTo(500_000);
        assertThat(StateMachine.transmitMicros(changed.variables()))
                .as("still 300 ms")
                .isEqualTo(300_000);
        assertThat(changed.variables().local().effective().requiredMinRxMicros())
                .isEqualTo(500_000);

        Step done = received(changed, fromPeer(BfdState.UP, false, true), 340);
        assertThat(StateMachine.transmitMicros(done.variables())).isEqualTo(500_000);
    }
}

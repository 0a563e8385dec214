package io.lbk8s.bfd;

import io.lbk8s.bfd.SessionVariables.Intervals;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 5880's asynchronous mode for one session as pure functions of (variables, event, now): no clock, no socket,
 * no randomness of its own. {@code random} (uniform in [0, 1)) picks the jitter of a packet scheduled in this step.
 */
public final class StateMachine {

    /** 6.8.3: while not Up, no faster than one packet a second, so an idle session costs next to nothing. */
    static final long SLOW_TX_MICROS = 1_000_000;

    private StateMachine() {}

    /** A new session: Down, and (unless passive) its first packet due at once. */
    public static Step start(BfdSettings settings, int localDiscriminator, long now, double random) {
        SessionVariables initial = SessionVariables.initial(settings, localDiscriminator);
        return schedule(adjustIntervals(initial), List.of(), now, random);
    }

    public static Step on(SessionVariables v, BfdEvent event, long now, double random) {
        return switch (event) {
            case BfdEvent.Received(BfdPacket packet) -> received(v, packet, now, random);
            case BfdEvent.TimerFired() -> timerFired(v, now, random);
            case BfdEvent.Reconfigured(BfdSettings settings) ->
                schedule(adjustIntervals(v.withSettings(settings)), List.of(), now, random);
            case BfdEvent.Stopped() -> {
                SessionVariables down = v.withState(BfdState.ADMIN_DOWN, Diagnostic.ADMINISTRATIVELY_DOWN)
                        .withIntervals(v.advertised(), v.effective(), false)
                        .withTimers(SessionVariables.NEVER, SessionVariables.NEVER);
                yield new Step(down, List.of(packet(down, false)), SessionVariables.NEVER);
            }
        };
    }

    /** The reception rules of 6.8.6, for a packet already validated and matched to this session. */
    private static Step received(SessionVariables v, BfdPacket packet, long now, double random) {
        if (v.state() == BfdState.ADMIN_DOWN) {
            return new Step(v, List.of(), nextDeadline(v));
        }
        SessionVariables s = v;
        if (packet.fin() && s.polling()) {
            s = s.withIntervals(s.advertised(), s.advertised(), false); // the peer knows: the new values hold
        }
        long detection = (long) packet.detectMultiplier()
                * Math.max(s.effective().requiredMinRxMicros(), packet.desiredMinTxMicros());
        s = s.withRemote(packet, now + detection * 1000);
        s = switch (packet.state()) {
            case ADMIN_DOWN ->
                s.state() == BfdState.DOWN ? s : s.withState(BfdState.DOWN, Diagnostic.NEIGHBOR_SIGNALED_SESSION_DOWN);
            case DOWN ->
                switch (s.state()) {
                    case DOWN -> s.withState(BfdState.INIT, s.diagnostic());
                    case UP -> s.withState(BfdState.DOWN, Diagnostic.NEIGHBOR_SIGNALED_SESSION_DOWN);
                    default -> s;
                };
            case INIT ->
                s.state() == BfdState.DOWN || s.state() == BfdState.INIT ? s.withState(BfdState.UP, s.diagnostic()) : s;
            case UP -> s.state() == BfdState.INIT ? s.withState(BfdState.UP, s.diagnostic()) : s;
        };
        s = adjustIntervals(s);
        // 6.8.7: a poll is answered at once, whatever the transmit timer says
        List<BfdPacket> send = packet.poll() ? List.of(packet(s, true)) : List.of();
        return schedule(s, send, now, random);
    }

    private static Step timerFired(SessionVariables v, long now, double random) {
        SessionVariables s = v;
        if (now >= s.detectionDeadlineNanos()) {
            if (s.state() == BfdState.INIT || s.state() == BfdState.UP) {
                s = s.withState(BfdState.DOWN, Diagnostic.CONTROL_DETECTION_TIME_EXPIRED);
            }
            s = adjustIntervals(s.withoutRemote());
        }
        List<BfdPacket> send = new ArrayList<>();
        if (now >= s.nextTransmitNanos() && mayTransmit(s)) {
            send.add(packet(s, false));
            s = s.withTimers(now + jittered(s, transmitMicros(s), random) * 1000, s.detectionDeadlineNanos());
        }
        return schedule(s, send, now, random);
    }

    /**
     * Sets what we advertise for the current state; a change while Up starts a Poll Sequence (6.8.3), during which
     * our timers use the safer of old and new: the faster transmit interval, the slower receive interval.
     */
    private static SessionVariables adjustIntervals(SessionVariables s) {
        Intervals wanted = s.state() == BfdState.UP
                ? s.configured()
                : new Intervals(
                        Math.max(SLOW_TX_MICROS, s.configured().desiredMinTxMicros()),
                        s.configured().requiredMinRxMicros());
        if (wanted.equals(s.advertised())) {
            return s;
        }
        if (s.state() != BfdState.UP) {
            return s.withIntervals(wanted, wanted, false); // the peer is not relying on our timing now
        }
        Intervals safer = new Intervals(
                Math.min(s.effective().desiredMinTxMicros(), wanted.desiredMinTxMicros()),
                Math.max(s.effective().requiredMinRxMicros(), wanted.requiredMinRxMicros()));
        return s.withIntervals(wanted, safer, true);
    }

    /** Starts or stops the transmit timer and brings it forward when the interval shrank. */
    private static Step schedule(SessionVariables s, List<BfdPacket> send, long now, double random) {
        long next;
        if (!mayTransmit(s)) {
            next = SessionVariables.NEVER;
        } else if (s.nextTransmitNanos() == SessionVariables.NEVER) {
            next = now; // the first packet goes out at once
        } else {
            next = Math.min(s.nextTransmitNanos(), now + jittered(s, transmitMicros(s), random) * 1000);
        }
        SessionVariables scheduled = s.withTimers(next, s.detectionDeadlineNanos());
        return new Step(scheduled, send, nextDeadline(scheduled));
    }

    /** 6.8.7: a passive side waits for the peer's first packet; a peer asking for none (Min RX 0) gets none. */
    private static boolean mayTransmit(SessionVariables s) {
        return s.state() != BfdState.ADMIN_DOWN
                && !(s.passive() && s.remoteDiscriminator() == 0)
                && s.remoteMinRxMicros() != 0;
    }

    /** 6.8.2: the slower of what we want and what the peer accepts. */
    static long transmitMicros(SessionVariables s) {
        return Math.max(s.effective().desiredMinTxMicros(), s.remoteMinRxMicros());
    }

    /** 6.8.7: 0 to 25 % shorter, so that sessions do not synchronise; 10 to 25 % with a multiplier of 1. */
    static long jittered(SessionVariables s, long micros, double random) {
        double factor = s.detectMultiplier() == 1 ? 0.90 - 0.15 * random : 1.0 - 0.25 * random;
        return (long) (micros * factor);
    }

    private static long nextDeadline(SessionVariables s) {
        return Math.min(s.nextTransmitNanos(), s.detectionDeadlineNanos());
    }

    private static BfdPacket packet(SessionVariables s, boolean fin) {
        return new BfdPacket(
                s.diagnostic(),
                s.state(),
                s.polling() && !fin,
                fin,
                false,
                false,
                s.detectMultiplier(),
                s.localDiscriminator(),
                s.remoteDiscriminator(),
                s.advertised().desiredMinTxMicros(),
                s.advertised().requiredMinRxMicros(),
                0);
    }
}

package io.lbk8s.bfd;

import io.lbk8s.bfd.SessionVariables.Intervals;
import io.lbk8s.bfd.SessionVariables.Local;
import io.lbk8s.bfd.SessionVariables.Remote;
import io.lbk8s.bfd.SessionVariables.Timers;
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
                schedule(adjustIntervals(v.with(v.local().withSettings(settings))), List.of(), now, random);
            case BfdEvent.Stopped() -> {
                Local local = v.local()
                        .withState(BfdState.ADMIN_DOWN, Diagnostic.ADMINISTRATIVELY_DOWN)
                        .withIntervals(v.local().advertised(), v.local().effective(), false);
                SessionVariables down = v.with(local).with(Timers.STOPPED);
                yield new Step(down, List.of(packet(down, false)), SessionVariables.NEVER);
            }
        };
    }

    /** The reception rules of 6.8.6, for a packet already validated and matched to this session. */
    private static Step received(SessionVariables v, BfdPacket packet, long now, double random) {
        Local local = v.local();
        if (local.state() == BfdState.ADMIN_DOWN) {
            return new Step(v, List.of(), v.timers().next());
        }
        if (packet.fin() && local.polling()) {
            local = local.withIntervals(local.advertised(), local.advertised(), false); // the peer knows: they hold
        }
        long detectionMicros = (long) packet.detectMultiplier()
                * Math.max(local.effective().requiredMinRxMicros(), packet.desiredMinTxMicros());
        local = switch (packet.state()) {
            case ADMIN_DOWN ->
                local.state() == BfdState.DOWN
                        ? local
                        : local.withState(BfdState.DOWN, Diagnostic.NEIGHBOR_SIGNALED_SESSION_DOWN);
            case DOWN ->
                switch (local.state()) {
                    case DOWN -> local.withState(BfdState.INIT, local.diagnostic());
                    case UP -> local.withState(BfdState.DOWN, Diagnostic.NEIGHBOR_SIGNALED_SESSION_DOWN);
                    default -> local;
                };
            case INIT ->
                local.state() == BfdState.DOWN || local.state() == BfdState.INIT
                        ? local.withState(BfdState.UP, local.diagnostic())
                        : local;
            case UP -> local.state() == BfdState.INIT ? local.withState(BfdState.UP, local.diagnostic()) : local;
        };
        SessionVariables s = adjustIntervals(v.with(local)
                .with(Remote.of(packet))
                .with(new Timers(v.timers().nextTransmitNanos(), now + detectionMicros * 1000)));
        // 6.8.7: a poll is answered at once, whatever the transmit timer says
        List<BfdPacket> send = packet.poll() ? List.of(packet(s, true)) : List.of();
        return schedule(s, send, now, random);
    }

    private static Step timerFired(SessionVariables v, long now, double random) {
        SessionVariables s = v;
        if (now >= s.timers().detectionDeadlineNanos()) {
            Local local = s.local();
            if (local.state() == BfdState.INIT || local.state() == BfdState.UP) {
                local = local.withState(BfdState.DOWN, Diagnostic.CONTROL_DETECTION_TIME_EXPIRED);
            }
            s = adjustIntervals(s.with(local)
                    .with(Remote.UNKNOWN)
                    .with(new Timers(s.timers().nextTransmitNanos(), SessionVariables.NEVER)));
        }
        List<BfdPacket> send = new ArrayList<>();
        if (now >= s.timers().nextTransmitNanos() && mayTransmit(s)) {
            send.add(packet(s, false));
            long next = now + jittered(s, transmitMicros(s), random) * 1000;
            s = s.with(new Timers(next, s.timers().detectionDeadlineNanos()));
        }
        return schedule(s, send, now, random);
    }

    /**
     * Sets what we advertise for the current state; a change while Up starts a Poll Sequence (6.8.3), during which
     * our timers use the safer of old and new: the faster transmit interval, the slower receive interval.
     */
    private static SessionVariables adjustIntervals(SessionVariables s) {
        Local local = s.local();
        Intervals wanted = local.state() == BfdState.UP
                ? local.configured()
                : new Intervals(
                        Math.max(SLOW_TX_MICROS, local.configured().desiredMinTxMicros()),
                        local.configured().requiredMinRxMicros());
        if (wanted.equals(local.advertised())) {
            return s;
        }
        if (local.state() != BfdState.UP) {
            return s.with(local.withIntervals(wanted, wanted, false)); // the peer is not relying on our timing now
        }
        Intervals safer = new Intervals(
                Math.min(local.effective().desiredMinTxMicros(), wanted.desiredMinTxMicros()),
                Math.max(local.effective().requiredMinRxMicros(), wanted.requiredMinRxMicros()));
        return s.with(local.withIntervals(wanted, safer, true));
    }

    /** Starts or stops the transmit timer and brings it forward when the interval shrank. */
    private static Step schedule(SessionVariables s, List<BfdPacket> send, long now, double random) {
        long due = s.timers().nextTransmitNanos();
        long next;
        if (!mayTransmit(s)) {
            next = SessionVariables.NEVER;
        } else if (due == SessionVariables.NEVER) {
            next = now; // the first packet goes out at once
        } else {
            next = Math.min(due, now + jittered(s, transmitMicros(s), random) * 1000);
        }
        SessionVariables scheduled = s.with(new Timers(next, s.timers().detectionDeadlineNanos()));
        return new Step(scheduled, send, scheduled.timers().next());
    }

    /** 6.8.7: a passive side waits for the peer's first packet; a peer asking for none (Min RX 0) gets none. */
    private static boolean mayTransmit(SessionVariables s) {
        return s.state() != BfdState.ADMIN_DOWN
                && !(s.local().passive() && s.remote().discriminator() == 0)
                && s.remote().minRxMicros() != 0;
    }

    /** 6.8.2: the slower of what we want and what the peer accepts. */
    static long transmitMicros(SessionVariables s) {
        return Math.max(s.local().effective().desiredMinTxMicros(), s.remote().minRxMicros());
    }

    /** 6.8.7: 0 to 25 % shorter, so that sessions do not synchronise; 10 to 25 % with a multiplier of 1. */
    static long jittered(SessionVariables s, long micros, double random) {
        double factor = s.local().detectMultiplier() == 1 ? 0.90 - 0.15 * random : 1.0 - 0.25 * random;
        return (long) (micros * factor);
    }

    private static BfdPacket packet(SessionVariables s, boolean fin) {
        Local local = s.local();
        return new BfdPacket(
                local.diagnostic(),
                local.state(),
                local.polling() && !fin,
                fin,
                false,
                false,
                local.detectMultiplier(),
                local.discriminator(),
                s.remote().discriminator(),
                local.advertised().desiredMinTxMicros(),
                local.advertised().requiredMinRxMicros(),
                0);
    }
}

package io.lbk8s.bfd;

/**
 * One session's state variables (RFC 5880 6.8.1) and its two timers, as nanoTime instants ({@link Long#MAX_VALUE}
 * when not running). Intervals are in microseconds, as on the wire.
 *
 * @param configured      what the BFDProfile asks for
 * @param advertised      what our packets say now: {@code configured}, but at least 1 s of transmit interval while
 *                        not Up (6.8.3)
 * @param effective       what our own timers use; during a Poll Sequence the safer of the old and the advertised
 *                        values, so that neither side declares the other down while they change (6.8.3)
 * @param polling         a Poll Sequence is under way: our packets carry P until the peer answers with F
 * @param remoteMinRxMicros the peer's Required Min RX; 1 until it speaks (6.8.1), 0 means "send me nothing"
 */
public record SessionVariables(
        BfdState state,
        BfdState remoteState,
        int localDiscriminator,
        int remoteDiscriminator,
        Diagnostic diagnostic,
        int detectMultiplier,
        boolean passive,
        Intervals configured,
        Intervals advertised,
        Intervals effective,
        boolean polling,
        long remoteMinRxMicros,
        long remoteDesiredMinTxMicros,
        int remoteDetectMultiplier,
        long nextTransmitNanos,
        long detectionDeadlineNanos) {

    /** @param desiredMinTxMicros  the fastest we want to send; @param requiredMinRxMicros the fastest we accept */
    public record Intervals(long desiredMinTxMicros, long requiredMinRxMicros) {}

    public static final long NEVER = Long.MAX_VALUE;

    /** A new session in Down, as 6.8.1 initializes it, with no timer running yet. */
    public static SessionVariables initial(BfdSettings settings, int localDiscriminator) {
        if (localDiscriminator == 0) {
            throw new IllegalArgumentException("a local discriminator must not be zero (RFC 5880 6.3)");
        }
        Intervals configured = intervals(settings);
        return new SessionVariables(
                BfdState.DOWN,
                BfdState.DOWN,
                localDiscriminator,
                0,
                Diagnostic.NONE,
                settings.detectMultiplier(),
                settings.passive(),
                configured,
                configured,
                configured,
                false,
                1,
                0,
                0,
                NEVER,
                NEVER);
    }

    static Intervals intervals(BfdSettings settings) {
        return new Intervals(
                settings.transmitInterval().toNanos() / 1000,
                settings.receiveInterval().toNanos() / 1000);
    }

    SessionVariables withState(BfdState newState, Diagnostic newDiagnostic) {
        return new SessionVariables(
                newState,
                remoteState,
                localDiscriminator,
                remoteDiscriminator,
                newDiagnostic,
                detectMultiplier,
                passive,
                configured,
                advertised,
                effective,
                polling,
                remoteMinRxMicros,
                remoteDesiredMinTxMicros,
                remoteDetectMultiplier,
                nextTransmitNanos,
                detectionDeadlineNanos);
    }

    SessionVariables withRemote(BfdPacket packet, long detectionDeadline) {
        return new SessionVariables(
                state,
                packet.state(),
                localDiscriminator,
                packet.myDiscriminator(),
                diagnostic,
                detectMultiplier,
                passive,
                configured,
                advertised,
                effective,
                polling,
                packet.requiredMinRxMicros(),
                packet.desiredMinTxMicros(),
                packet.detectMultiplier(),
                nextTransmitNanos,
                detectionDeadline);
    }

    /** The peer fell silent: forget it (6.8.1 resets bfd.RemoteDiscr), so a restarted peer is met afresh. */
    SessionVariables withoutRemote() {
        return new SessionVariables(
                state,
                BfdState.DOWN,
                localDiscriminator,
                0,
                diagnostic,
                detectMultiplier,
                passive,
                configured,
                advertised,
                effective,
                polling,
                1,
                0,
                0,
                nextTransmitNanos,
                NEVER);
    }

    SessionVariables withIntervals(Intervals newAdvertised, Intervals newEffective, boolean newPolling) {
        return new SessionVariables(
                state,
                remoteState,
                localDiscriminator,
                remoteDiscriminator,
                diagnostic,
                detectMultiplier,
                passive,
                configured,
                newAdvertised,
                newEffective,
                newPolling,
                remoteMinRxMicros,
                remoteDesiredMinTxMicros,
                remoteDetectMultiplier,
                nextTransmitNanos,
                detectionDeadlineNanos);
    }

    SessionVariables withSettings(BfdSettings settings) {
        return new SessionVariables(
                state,
                remoteState,
                localDiscriminator,
                remoteDiscriminator,
                diagnostic,
                settings.detectMultiplier(),
                settings.passive(),
                intervals(settings),
                advertised,
                effective,
                polling,
                remoteMinRxMicros,
                remoteDesiredMinTxMicros,
                remoteDetectMultiplier,
                nextTransmitNanos,
                detectionDeadlineNanos);
    }

    SessionVariables withTimers(long nextTransmit, long detectionDeadline) {
        return new SessionVariables(
                state,
                remoteState,
                localDiscriminator,
                remoteDiscriminator,
                diagnostic,
                detectMultiplier,
                passive,
                configured,
                advertised,
                effective,
                polling,
                remoteMinRxMicros,
                remoteDesiredMinTxMicros,
                remoteDetectMultiplier,
                nextTransmit,
                detectionDeadline);
    }
}

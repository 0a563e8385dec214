package io.lbk8s.bfd;

/**
 * One session's state variables (RFC 5880 6.8.1) and its two timers. Intervals are in microseconds, as on the
 * wire; instants are nanoTime values, {@link #NEVER} when a timer is not running.
 */
public record SessionVariables(Local local, Remote remote, Timers timers) {

    public static final long NEVER = Long.MAX_VALUE;

    /** @param desiredMinTxMicros the fastest we want to send; @param requiredMinRxMicros the fastest we accept */
    public record Intervals(long desiredMinTxMicros, long requiredMinRxMicros) {

        static Intervals of(BfdSettings settings) {
            return new Intervals(
                    settings.transmitInterval().toNanos() / 1000,
                    settings.receiveInterval().toNanos() / 1000);
        }
    }

    /**
     * This side.
     *
     * @param configured what the BFDProfile asks for
     * @param advertised what our packets say now: {@code configured}, but at least 1 s of transmit interval while
     *                   not Up (6.8.3)
     * @param effective  what our own timers use; during a Poll Sequence the safer of the old and the advertised
     *                   values, so that neither side declares the other down while they change (6.8.3)
     * @param polling    a Poll Sequence is under way: our packets carry P until the peer answers with F
     */
    public record Local(
            BfdState state,
            Diagnostic diagnostic,
            int discriminator,
            int detectMultiplier,
            boolean passive,
            Intervals configured,
            Intervals advertised,
            Intervals effective,
            boolean polling) {

        Local withState(BfdState newState, Diagnostic newDiagnostic) {
            return new Local(
                    newState,
                    newDiagnostic,
                    discriminator,
                    detectMultiplier,
                    passive,
                    configured,
                    advertised,
                    effective,
                    polling);
        }

        Local withIntervals(Intervals newAdvertised, Intervals newEffective, boolean newPolling) {
            return new Local(
                    state,
                    diagnostic,
                    discriminator,
                    detectMultiplier,
                    passive,
                    configured,
                    newAdvertised,
                    newEffective,
                    newPolling);
        }

        Local withSettings(BfdSettings settings) {
            return new Local(
                    state,
                    diagnostic,
                    discriminator,
                    settings.detectMultiplier(),
                    settings.passive(),
                    Intervals.of(settings),
                    advertised,
                    effective,
                    polling);
        }
    }

    /**
     * What the peer's last packet said.
     *
     * @param minRxMicros the peer's Required Min RX; 1 until it speaks (6.8.1), 0 means "send me nothing"
     * @param detectMultiplier 0 until it speaks
     */
    public record Remote(
            BfdState state, int discriminator, long minRxMicros, long desiredMinTxMicros, int detectMultiplier) {

        /** Nothing heard yet, or forgotten after a detection time of silence (6.8.1 resets bfd.RemoteDiscr). */
        public static final Remote UNKNOWN = new Remote(BfdState.DOWN, 0, 1, 0, 0);

        static Remote of(BfdPacket packet) {
            return new Remote(
                    packet.state(),
                    packet.myDiscriminator(),
                    packet.requiredMinRxMicros(),
                    packet.desiredMinTxMicros(),
                    packet.detectMultiplier());
        }
    }

    /** When the next packet is due, and when the peer's silence means it is down. */
    public record Timers(long nextTransmitNanos, long detectionDeadlineNanos) {

        public static final Timers STOPPED = new Timers(NEVER, NEVER);

        /** The earlier of the two: when the shell must fire {@link BfdEvent.TimerFired}. */
        long next() {
            return Math.min(nextTransmitNanos, detectionDeadlineNanos);
        }
    }

    /** A new session in Down, as 6.8.1 initializes it, with no timer running yet. */
    public static SessionVariables initial(BfdSettings settings, int localDiscriminator) {
        if (localDiscriminator == 0) {
            throw new IllegalArgumentException("a local discriminator must not be zero (RFC 5880 6.3)");
        }
        Intervals configured = Intervals.of(settings);
        Local local = new Local(
                BfdState.DOWN,
                Diagnostic.NONE,
                localDiscriminator,
                settings.detectMultiplier(),
                settings.passive(),
                configured,
                configured,
                configured,
                false);
        return new SessionVariables(local, Remote.UNKNOWN, Timers.STOPPED);
    }

    public BfdState state() {
        return local.state();
    }

    SessionVariables with(Local newLocal) {
        return new SessionVariables(newLocal, remote, timers);
    }

    SessionVariables with(Remote newRemote) {
        return new SessionVariables(local, newRemote, timers);
    }

    SessionVariables with(Timers newTimers) {
        return new SessionVariables(local, remote, newTimers);
    }
}

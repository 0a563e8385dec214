package io.lbk8s.election;

import java.util.Optional;

/**
 * The Lease as this candidate last read it (empty: there is no Lease object), and when, by the local monotonic clock
 * ({@link System#nanoTime}), it last saw the Lease change. A holder is alive while its Lease keeps changing; how old
 * its renewTime looks against our wall clock says nothing, as the two clocks may disagree by any amount.
 */
public record Observed(Optional<LeaseRecord> lease, long changedAtNanos) {

    /** The first read: a holder gets a full lease duration from now, whatever its renewTime says. */
    public static Observed first(Optional<LeaseRecord> lease, long nowNanos) {
        return new Observed(lease, nowNanos);
    }

    /** After another read: the change time moves only when the Lease differs from what was seen before. */
    public Observed next(Optional<LeaseRecord> seen, long nowNanos) {
        return seen.equals(lease) ? this : new Observed(seen, nowNanos);
    }

    public Optional<String> holder() {
        return lease.flatMap(LeaseRecord::heldBy);
    }
}

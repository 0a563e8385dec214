package io.lbk8s.election;

import java.util.Optional;

/**
 * What one read of the Lease showed. The times are kept as the text the API returned: they are compared for change,
 * never against this machine's clock, whose skew against the holder's is unknown.
 *
 * @param holder the holder's identity, empty when nobody holds it (never taken, or released)
 * @param resourceVersion changes with every write, so a holder's renewal is seen even when its times are equal
 */
public record LeaseRecord(
        String holder,
        String acquireTime,
        String renewTime,
        int leaseDurationSeconds,
        int leaseTransitions,
        String resourceVersion) {

    public LeaseRecord {
        holder = holder == null ? "" : holder;
    }

    Optional<String> heldBy() {
        return holder.isEmpty() ? Optional.empty() : Optional.of(holder);
    }
}

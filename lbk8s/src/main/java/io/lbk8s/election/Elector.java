package io.lbk8s.election;

import java.time.Duration;
import java.util.Optional;

/**
 * The election's decisions, as client-go's leader election makes them: expiry is judged by how long the Lease has
 * stayed unchanged on this candidate's monotonic clock, never by comparing its renewTime with the local wall clock.
 */
public final class Elector {
    private Elector() {}

    /**
     * @param self this candidate's identity
     * @param observed the Lease as last read; empty before any read succeeded
     * @param lastRenewedNanos while this candidate leads: when its last successful write as holder was sent
     * @param nowNanos the local monotonic clock now, on the same scale as the other times
     */
    public static Decision decide(
            ElectionSettings settings,
            String self,
            Optional<Observed> observed,
            Optional<Long> lastRenewedNanos,
            long nowNanos) {
        if (lastRenewedNanos.isPresent()) {
            Duration sinceRenewal = Duration.ofNanos(nowNanos - lastRenewedNanos.get());
            if (sinceRenewal.compareTo(settings.renewDeadline()) >= 0) {
                return new Decision.StopLeading("the Lease could not be renewed for " + sinceRenewal.toMillis() + "ms");
            }
        }
        if (observed.isEmpty()) {
            return new Decision.Follow("the Lease has not been read yet");
        }
        Optional<LeaseRecord> lease = observed.get().lease();
        if (lease.isEmpty()) {
            return new Decision.Acquire("there is no Lease yet");
        }
        Optional<String> holder = lease.get().heldBy();
        if (holder.isEmpty()) {
            return new Decision.Acquire("the Lease was released");
        }
        if (holder.get().equals(self)) {
            return new Decision.Renew();
        }
        if (lastRenewedNanos.isPresent()) {
            return new Decision.StopLeading(holder.get() + " holds the Lease");
        }
        // The holder's own lease duration counts when it is longer than ours (replicas started with other flags).
        Duration expiry =
                max(settings.leaseDuration(), Duration.ofSeconds(lease.get().leaseDurationSeconds()));
        Duration unchanged = Duration.ofNanos(nowNanos - observed.get().changedAtNanos());
        if (unchanged.compareTo(expiry) < 0) {
            return new Decision.Follow(holder.get() + " leads");
        }
        return new Decision.Acquire(holder.get() + "'s Lease has not changed for " + unchanged.toMillis() + "ms");
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}

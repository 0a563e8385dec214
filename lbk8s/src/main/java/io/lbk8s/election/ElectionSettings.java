package io.lbk8s.election;

import java.time.Duration;

/**
 * How long a Lease stays held without a change ({@code leaseDuration}), how long a leader keeps leading while its
 * renewals fail ({@code renewDeadline}), and how often every candidate reads the Lease ({@code retryPeriod}).
 * The leader must give up before any standby may take over, so the renew deadline is shorter than the lease.
 */
public record ElectionSettings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    public static final ElectionSettings DEFAULTS =
            new ElectionSettings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(500));

    public ElectionSettings {
        if (!leaseDuration.isPositive() || !renewDeadline.isPositive() || !retryPeriod.isPositive()) {
            throw new IllegalArgumentException(
                    "the lease duration, renew deadline and retry period must all be longer than 0");
        }
        if (renewDeadline.compareTo(leaseDuration) >= 0) {
            throw new IllegalArgumentException("the renew deadline (" + renewDeadline.toMillis()
                    + "ms) must be shorter than the lease " + "duration (" + leaseDuration.toMillis()
                    + "ms): a leader that cannot renew must stop before a standby takes over");
        }
        if (retryPeriod.compareTo(renewDeadline) >= 0) {
            throw new IllegalArgumentException(
                    "the retry period (" + retryPeriod.toMillis() + "ms) must be shorter than the renew " + "deadline ("
                            + renewDeadline.toMillis() + "ms): the leader must get to try renewing before it gives up");
        }
    }

    /** The Lease's leaseDurationSeconds: whole seconds, rounded up so that no reader expires it early. */
    int leaseDurationSeconds() {
        return (int) Math.max(1, (leaseDuration.toMillis() + 999) / 1000);
    }
}

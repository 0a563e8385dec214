package io.lbk8s.reconcile;

/**
 * A limit shared by every key: {@code perSecond} tokens a second, at most {@code burst} saved up. Each retry takes a
 * token, even one that is not there yet: it then waits until the bucket has refilled that far (as Go's rate.Limiter's
 * reservations do), so that a burst of failures is spread out instead of retried at once.
 */
final class TokenBucket {
    private final double perNano;
    private final int burst;
    private double tokens;
    private long last;

    TokenBucket(RetryPolicy policy, long now) {
        this.perNano = policy.perSecond() / 1e9;
        this.burst = policy.burst();
        this.tokens = burst;
        this.last = now;
    }

    /** Takes a token; how long until it is there (0 when it is now). */
    long reserve(long now) {
        tokens = Math.min(burst, tokens + Math.max(0, now - last) * perNano);
        last = Math.max(last, now);
        tokens -= 1;
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / perNano);
    }
}

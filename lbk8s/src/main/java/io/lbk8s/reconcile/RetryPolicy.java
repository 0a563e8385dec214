package io.lbk8s.reconcile;

import java.time.Duration;

/**
 * How soon a key whose reconcile failed is tried again: the larger of its own delay ({@code firstDelay} doubled with
 * each failure in a row, at most {@code maxDelay}) and the wait for a token of a bucket shared by every key
 * ({@code perSecond} tokens a second, at most {@code burst} saved up), as client-go's default controller rate limiter.
 */
public record RetryPolicy(Duration firstDelay, Duration maxDelay, double perSecond, int burst) {
    /**
     * client-go's first delay (5 ms) and bucket (10 a second, 100 at once), but at most 30 s between tries instead of
     * 1000 s. client-go's cap shields the API server of a big cluster from thousands of failing keys; lbk8s has one
     * key per Service in its controller and one in each speaker, and a failure here usually is an API server that was
     * away or a CRD not yet applied: once it is back, a Service should get its address within half a minute, not a
     * quarter of an hour, while one that fails for good costs two requests a minute.
     */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofMillis(5), Duration.ofSeconds(30), 10, 100);

    public RetryPolicy {
        if (!firstDelay.isPositive() || maxDelay.compareTo(firstDelay) < 0 || perSecond <= 0 || burst < 1) {
            throw new IllegalArgumentException(
                    "a retry policy needs 0 < firstDelay <= maxDelay, perSecond > 0 and burst >= 1: " + firstDelay
                            + ", " + maxDelay + ", " + perSecond + ", " + burst);
        }
    }
}

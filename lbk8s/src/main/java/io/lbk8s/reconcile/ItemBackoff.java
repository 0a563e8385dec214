package io.lbk8s.reconcile;

import java.util.HashMap;
import java.util.Map;

/** Each key's delay before its next try: doubled with each failure in a row, capped, reset when the key is forgotten. */
final class ItemBackoff<K> {
    private final long firstNanos;
    private final long maxNanos;
    private final Map<K, Integer> failures = new HashMap<>();

    ItemBackoff(RetryPolicy policy) {
        this.firstNanos = policy.firstDelay().toNanos();
        this.maxNanos = policy.maxDelay().toNanos();
    }

    /** Counts one more failure of {@code key}; the delay before its next try. */
    long next(K key) {
        int before = failures.merge(key, 1, Integer::sum) - 1;
        // firstNanos * 2^before, without overflowing once the cap is long reached
        return before >= Long.numberOfLeadingZeros(firstNanos) - 1
                ? maxNanos
                : Math.min(maxNanos, firstNanos << before);
    }

    void forget(K key) {
        failures.remove(key);
    }

    int failures(K key) {
        return failures.getOrDefault(key, 0);
    }
}

package io.lbk8s.reconcile;

import java.time.Duration;

/** How a reconcile of a key ended, and so when the key comes back. */
public sealed interface ReconcileResult {
    /** Reconciled: the key comes back only when it is added again, and its backoff starts afresh. */
    record Done() implements ReconcileResult {}

    /** Failed: the key comes back after its backoff, which grows with each failure in a row ({@link RetryPolicy}). */
    record Retry() implements ReconcileResult {}

    /** Reconciled for now, but the key is to be looked at again after {@code delay} (its backoff starts afresh). */
    record RetryAfter(Duration delay) implements ReconcileResult {}

    ReconcileResult DONE = new Done();
    ReconcileResult RETRY = new Retry();
}

package io.lbk8s.reconcile;

import java.time.Duration;

/** A clock that moves only when the test says. */
final class ManualTicker implements Ticker {
    private long nanos = 1_000_000_000L;

    @Override
    public long nanos() {
        return nanos;
    }

    void advance(Duration by) {
        nanos += by.toNanos();
    }
}

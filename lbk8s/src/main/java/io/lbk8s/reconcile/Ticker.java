package io.lbk8s.reconcile;

/** A monotonic clock in nanoseconds; tests pass one they move by hand, so that no test sleeps. */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long nanos();
}

package io.lbk8s.demo;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** Bounded polling: every wait of the demo has a deadline and ends with a sentence saying what did not happen. */
final class Wait {
    private Wait() {}

    static <T> T until(String what, Duration timeout, Duration interval, Supplier<Optional<T>> probe)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() > deadline) {
                throw new StepFailed("timed out after " + Format.seconds(timeout) + " waiting for " + what);
            }
            Thread.sleep(interval);
        }
    }
}

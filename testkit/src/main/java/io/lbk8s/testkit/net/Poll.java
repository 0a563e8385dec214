package io.lbk8s.testkit.net;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Asks again until an answer satisfies a condition: bounded by a number of tries and by time, whichever ends first. */
final class Poll {

    static final Duration INTERVAL = Duration.ofMillis(50);

    private Poll() {}

    /**
     * The first answer of {@code probe} that satisfies {@code done}.
     *
     * @throws IllegalStateException after {@code timeout}, naming {@code what} was awaited and the last answer seen
     */
    static <T> T until(String what, Supplier<T> probe, Predicate<? super T> done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long maxTries = Math.max(2, timeout.toMillis() / INTERVAL.toMillis() + 1);
        T last = null;
        for (long tried = 0; tried < maxTries; tried++) {
            last = probe.get();
            if (done.test(last)) {
                return last;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
            Leftovers.sleep(INTERVAL);
        }
        throw new IllegalStateException("not " + what + " within " + timeout + "; last seen: " + last);
    }
}

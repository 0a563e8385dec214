package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.UpstreamRouter;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Samples the router's FIB for {@code prefix} on a thread of its own, every 50 ms for at most 3 minutes: how many
 * samples lacked {@code nextHop}, and when (ms after the start) the first and the last of them were taken.
 */
final class FibWatch implements AutoCloseable {
    record Seen(int samples, int missing, long firstMissingMillis, long lastMissingMillis, long longestGapMillis) {
        /**
         * Sampled throughout a restart (the watch starts before it and stops after it), the node's next hop never left
         * the router's FIB. What makes the sampling count is that no gap between two samples was long enough to hide a
         * loss, not how many there were: a quick restart takes about a second, 10 samples or so (a count of "more than
         * 10" failed on one that quick).
         */
        void assertNeverMissing() {
            assertThat(samples).as("FIB samples during the restart").isGreaterThanOrEqualTo(3);
            assertThat(longestGapMillis)
                    .as("longest time between two FIB samples, ms")
                    .isLessThan(2000);
            assertThat(missing)
                    .as("FIB samples without the restarting node's next hop")
                    .isZero();
        }
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Long> missing = new CopyOnWriteArrayList<>();
    private final AtomicInteger samples = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong longestGapNanos = new java.util.concurrent.atomic.AtomicLong();
    private Thread sampler;

    static FibWatch start(UpstreamRouter router, String prefix, InetAddress nextHop) {
        FibWatch watch = new FibWatch();
        long started = System.nanoTime();
        long deadline = started + Duration.ofMinutes(3).toNanos();
        watch.sampler = Thread.ofPlatform().name("fib-watch").start(() -> {
            long previous = System.nanoTime();
            while (!watch.stop.get() && System.nanoTime() < deadline) {
                watch.samples.incrementAndGet();
                long now = System.nanoTime();
                watch.longestGapNanos.accumulateAndGet(now - previous, Math::max);
                previous = now;
                if (!router.fibNextHops(prefix).contains(nextHop)) {
                    watch.missing.add(
                            Duration.ofNanos(System.nanoTime() - started).toMillis());
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return watch;
    }

    Seen stop() throws InterruptedException {
        stop.set(true);
        sampler.join(Duration.ofSeconds(10));
        List<Long> when = List.copyOf(missing);
        return new Seen(
                samples.get(),
                when.size(),
                when.isEmpty() ? -1 : when.getFirst(),
                when.isEmpty() ? -1 : when.getLast(),
                Duration.ofNanos(longestGapNanos.get()).toMillis());
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}

package io.lbk8s.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReconcileLoopTest {
    final ManualTicker ticker = new ManualTicker();
    final long start = ticker.nanos();
    final RateLimitedQueue<String> queue = new RateLimitedQueue<>(RateLimitedQueueTest.BACKOFF_ONLY, ticker);

    /** Moves the clock to each retry and reconciles what is due, until nothing is left; when each reconcile ran (ms). */
    private List<Long> runToEnd(ReconcileLoop<String> loop, List<Long> ranAt) {
        for (int step = 0; step < 100; step++) {
            if (!loop.processReady()) {
                var next = queue.untilNextDue();
                if (next.isEmpty()) {
                    return ranAt;
                }
                ticker.advance(next.get());
            }
        }
        throw new AssertionError("still reconciling after 100 steps: " + ranAt);
    }

    private long millisSinceStart() {
        return TimeUnit.NANOSECONDS.toMillis(ticker.nanos() - start);
    }

    @Test
    void aReconcileFailingFourTimesIsRetriedWithGrowingDelaysThenSucceeds() {
        List<Long> ranAt = new ArrayList<>();
        var loop = new ReconcileLoop<>(
                queue,
                key -> {
                    ranAt.add(millisSinceStart());
                    return ranAt.size() <= 4 ? ReconcileResult.RETRY : ReconcileResult.DONE;
                },
                Duration.ofSeconds(1),
                idle -> {});
        queue.add("web");

        runToEnd(loop, ranAt);

        // delays 5, 10, 20, 40 ms between the tries
        assertThat(ranAt).containsExactly(0L, 5L, 15L, 35L, 75L);
        assertThat(queue.failures("web")).as("forgotten once it succeeded").isZero();
    }

    @Test
    void aKeyThatSucceededStartsItsNextFailuresFromTheFirstDelay() {
        List<Long> ranAt = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        var loop = new ReconcileLoop<>(
                queue,
                key -> {
                    ranAt.add(millisSinceStart());
                    int call = calls.incrementAndGet();
                    return call == 3 || call == 5
                            ? ReconcileResult.DONE
                            : ReconcileResult.RETRY; // fail, fail, ok, fail, ok
                },
                Duration.ofSeconds(1),
                idle -> {});
        queue.add("web");
        runToEnd(loop, ranAt);
        ticker.advance(Duration.ofSeconds(1));
        long again = millisSinceStart();
        queue.add("web");
        runToEnd(loop, ranAt);

        assertThat(ranAt).containsExactly(0L, 5L, 15L, again, again + 5);
    }

    @Test
    void aReconcileThatThrowsIsRetriedLikeAFailure() {
        List<Long> ranAt = new ArrayList<>();
        var loop = new ReconcileLoop<>(
                queue,
                key -> {
                    ranAt.add(millisSinceStart());
                    if (ranAt.size() <= 2) {
                        throw new IllegalStateException("the API server is away");
                    }
                    return ReconcileResult.DONE;
                },
                Duration.ofSeconds(1),
                idle -> {});
        queue.add("web");

        runToEnd(loop, ranAt);

        assertThat(ranAt).containsExactly(0L, 5L, 15L);
    }

    @Test
    void retryAfterComesBackAtTheTimeAskedAndResetsTheBackoff() {
        List<Long> ranAt = new ArrayList<>();
        var loop = new ReconcileLoop<>(
                queue,
                key -> {
                    ranAt.add(millisSinceStart());
                    return switch (ranAt.size()) {
                        case 1, 2 -> ReconcileResult.RETRY;
                        case 3 -> new ReconcileResult.RetryAfter(Duration.ofMillis(500));
                        case 4 -> ReconcileResult.RETRY;
                        default -> ReconcileResult.DONE;
                    };
                },
                Duration.ofSeconds(1),
                idle -> {});
        queue.add("web");

        runToEnd(loop, ranAt);

        assertThat(ranAt).containsExactly(0L, 5L, 15L, 515L, 520L);
    }

    @Test
    void aKeyAddedWhileItIsReconciledIsReconciledAgainAfterNeverAtOnce() throws Exception {
        var realQueue = new RateLimitedQueue<String>(RetryPolicy.DEFAULT);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch addedMeanwhile = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        ReconcileLoop.Reconciler<String> reconciler = key -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (calls.incrementAndGet() == 1) {
                    inFirst.countDown();
                    await(addedMeanwhile);
                } else {
                    second.countDown();
                }
            } finally {
                running.decrementAndGet();
            }
            return ReconcileResult.DONE;
        };
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // two loops on one queue: the processing set keeps them off the same key
            var loop = new ReconcileLoop<>(realQueue, reconciler, Duration.ofMillis(50), idle -> {});
            workers.add(Thread.ofVirtual().start(() -> loop.run(() -> true)));
        }
        try {
            realQueue.add("web");
            assertThat(inFirst.await(5, TimeUnit.SECONDS)).isTrue();
            realQueue.add("web");
            Thread.sleep(100); // a second loop polls meanwhile: it must not take "web"
            assertThat(calls.get()).as("reconciles while the first is running").isEqualTo(1);
            addedMeanwhile.countDown();
            assertThat(second.await(5, TimeUnit.SECONDS))
                    .as("reconciled again after the first ended")
                    .isTrue();
            assertThat(mostAtOnce.get()).isEqualTo(1);
        } finally {
            workers.forEach(Thread::interrupt);
            for (Thread worker : workers) {
                worker.join(5_000);
            }
        }
    }

    @Test
    void theAfterPassHookRunsAfterEachKeyAndWhenIdle() throws Exception {
        var realQueue = new RateLimitedQueue<String>(RetryPolicy.DEFAULT);
        List<Boolean> passes = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch idleSeen = new CountDownLatch(1);
        var loop = new ReconcileLoop<>(realQueue, key -> ReconcileResult.DONE, Duration.ofMillis(20), idle -> {
            passes.add(idle);
            if (idle) {
                idleSeen.countDown();
            }
        });
        realQueue.add("web");
        Thread worker = Thread.ofVirtual().start(() -> loop.run(() -> true));
        try {
            assertThat(idleSeen.await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            worker.interrupt();
            worker.join(5_000);
        }
        assertThat(passes).startsWith(false, true);
        assertThat(worker.isAlive())
                .as("the loop ends when its thread is interrupted")
                .isFalse();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

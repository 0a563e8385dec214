package io.lbk8s.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RateLimitedQueueTest {
    /** A bucket too big to matter, so that only the per-key backoff is seen. */
    static final RetryPolicy BACKOFF_ONLY =
            new RetryPolicy(Duration.ofMillis(5), Duration.ofSeconds(30), 1_000_000, 1_000_000);

    final ManualTicker ticker = new ManualTicker();

    /** Runs a script of steps on one queue: each step is an action and the keys that poll() yields right after it. */
    record Step(String action, List<String> polled) {}

    static Stream<Arguments> scripts() {
        return Stream.of(
                Arguments.of(
                        "a key added twice waits once",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "keys come out in the order they were first added",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("add b", List.of()),
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("poll", List.of("b")))),
                Arguments.of(
                        "a key added while processing is not handed out again until done",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("add a", List.of()),
                                new Step("poll", List.of()),
                                new Step("done a", List.of()),
                                new Step("poll", List.of("a")))),
                Arguments.of(
                        "a key added many times while processing comes back once",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("add a", List.of()),
                                new Step("add a", List.of()),
                                new Step("done a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("done a", List.of()),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "a key processed and done, not added again, does not come back",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("done a", List.of()),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "other keys are handed out while one is processing",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("add b", List.of()),
                                new Step("add a", List.of()),
                                new Step("poll", List.of("b")),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "a delayed key is ready only when its time comes",
                        List.of(
                                new Step("addAfter a 100", List.of()),
                                new Step("poll", List.of()),
                                new Step("wait 99", List.of()),
                                new Step("poll", List.of()),
                                new Step("wait 1", List.of()),
                                new Step("poll", List.of("a")))),
                Arguments.of(
                        "of two delays for one key the sooner counts, and the key comes once",
                        List.of(
                                new Step("addAfter a 100", List.of()),
                                new Step("addAfter a 10", List.of()),
                                new Step("addAfter a 50", List.of()),
                                new Step("wait 10", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("done a", List.of()),
                                new Step("wait 200", List.of()),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "a delayed key already waiting is not doubled",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("addAfter a 10", List.of()),
                                new Step("wait 10", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("poll", List.of()))),
                Arguments.of(
                        "a key waiting out a delay is ready at once when added, and again when the delay ends",
                        List.of(
                                new Step("addAfter a 1000", List.of()),
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("done a", List.of()),
                                new Step("wait 1000", List.of()),
                                new Step("poll", List.of("a")))),
                Arguments.of(
                        "a delay of zero adds at once",
                        List.of(new Step("addAfter a 0", List.of()), new Step("poll", List.of("a")))),
                Arguments.of(
                        "a delayed key that comes due while processing waits until done",
                        List.of(
                                new Step("add a", List.of()),
                                new Step("poll", List.of("a")),
                                new Step("addAfter a 10", List.of()),
                                new Step("wait 10", List.of()),
                                new Step("poll", List.of()),
                                new Step("done a", List.of()),
                                new Step("poll", List.of("a")))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scripts")
    void handsOutEachKeyAsClientGoDoes(String name, List<Step> script) {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY, ticker);
        for (Step step : script) {
            String[] words = step.action().split(" ");
            List<String> polled = new ArrayList<>();
            switch (words[0]) {
                case "add" -> queue.add(words[1]);
                case "addAfter" -> queue.addAfter(words[1], Duration.ofMillis(Long.parseLong(words[2])));
                case "done" -> queue.done(words[1]);
                case "wait" -> ticker.advance(Duration.ofMillis(Long.parseLong(words[1])));
                case "poll" -> queue.poll().ifPresent(polled::add);
                default -> throw new IllegalArgumentException(step.action());
            }
            assertThat(polled).as("after %s", step.action()).isEqualTo(step.polled());
        }
    }

    static Stream<Arguments> backoffs() {
        return Stream.of(
                // failures in a row, then the delays (ms) each further failure gets
                Arguments.of(
                        new RetryPolicy(Duration.ofMillis(5), Duration.ofSeconds(30), 1e6, 1_000_000),
                        List.of(
                                5L, 10L, 20L, 40L, 80L, 160L, 320L, 640L, 1_280L, 2_560L, 5_120L, 10_240L, 20_480L,
                                30_000L, 30_000L)),
                Arguments.of(
                        new RetryPolicy(Duration.ofMillis(100), Duration.ofMillis(300), 1e6, 1_000_000),
                        List.of(100L, 200L, 300L, 300L)),
                Arguments.of(
                        new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 1e6, 1_000_000),
                        List.of(1_000L, 1_000L)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backoffs")
    void eachFailureInARowDoublesTheDelayUpToTheCap(RetryPolicy policy, List<Long> expectedMillis) {
        var queue = new RateLimitedQueue<String>(policy, ticker);
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < expectedMillis.size(); i++) {
            delays.add(queue.addRateLimited("a").toMillis());
        }
        assertThat(delays).isEqualTo(expectedMillis);
        assertThat(queue.failures("a")).isEqualTo(expectedMillis.size());
    }

    @Test
    void theBackoffNeverOverflowsAfterManyFailures() {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY, ticker);
        Duration last = Duration.ZERO;
        for (int i = 0; i < 200; i++) {
            last = queue.addRateLimited("a");
            assertThat(last).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
        }
        assertThat(last).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void forgettingAKeyStartsItsBackoffAfreshAndLeavesOthersAlone() {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY, ticker);
        queue.addRateLimited("a");
        queue.addRateLimited("a");
        queue.addRateLimited("b");
        queue.addRateLimited("b");

        queue.forget("a");

        assertThat(queue.failures("a")).isZero();
        assertThat(queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(5));
        assertThat(queue.addRateLimited("b")).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void aRetriedKeyIsReadyAfterItsDelayAndNotBefore() {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY, ticker);
        queue.addRateLimited("a");
        queue.addRateLimited("a"); // 10 ms; the sooner 5 ms one counts
        assertThat(queue.untilNextDue()).contains(Duration.ofMillis(5));
        ticker.advance(Duration.ofMillis(4));
        assertThat(queue.poll()).isEmpty();
        ticker.advance(Duration.ofMillis(1));
        assertThat(queue.poll()).contains("a");
        assertThat(queue.untilNextDue()).isEmpty();
    }

    static Stream<Arguments> globalLimits() {
        return Stream.of(
                // qps, burst, distinct keys failing at once, the delays (ms) of the last three
                Arguments.of(10.0, 100, 100, List.of(5L, 5L, 5L)),
                Arguments.of(10.0, 100, 103, List.of(100L, 200L, 300L)),
                Arguments.of(10.0, 2, 5, List.of(100L, 200L, 300L)),
                Arguments.of(1.0, 1, 3, List.of(5L, 1_000L, 2_000L)));
    }

    @ParameterizedTest(name = "{0}/s, burst {1}, {2} keys failing at once -> last delays {3} ms")
    @MethodSource("globalLimits")
    void manyKeysFailingAtOnceAreSpreadOutByTheSharedBucket(
            double perSecond, int burst, int keys, List<Long> lastMillis) {
        var queue = new RateLimitedQueue<String>(
                new RetryPolicy(Duration.ofMillis(5), Duration.ofSeconds(30), perSecond, burst), ticker);
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            delays.add(queue.addRateLimited("key-" + i).toMillis());
        }
        assertThat(delays.subList(keys - 3, keys)).isEqualTo(lastMillis);
    }

    @Test
    void theBucketRefillsWithTime() {
        var queue = new RateLimitedQueue<String>(
                new RetryPolicy(Duration.ofMillis(5), Duration.ofSeconds(30), 10, 1), ticker);
        assertThat(queue.addRateLimited("a")).isEqualTo(Duration.ofMillis(5));
        assertThat(queue.addRateLimited("b")).isEqualTo(Duration.ofMillis(100));
        ticker.advance(Duration.ofMillis(300)); // pays back b's token and saves one (the burst)
        assertThat(queue.addRateLimited("c")).isEqualTo(Duration.ofMillis(5));
        assertThat(queue.addRateLimited("d")).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void depthCountsOnlyKeysReadyToBeTaken() {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY, ticker);
        queue.add("a");
        queue.add("b");
        queue.addAfter("c", Duration.ofSeconds(1));
        assertThat(queue.depth()).isEqualTo(2);
        Optional<String> taken = queue.poll();
        queue.add(taken.orElseThrow()); // waits for done, not in the queue
        assertThat(queue.depth()).isEqualTo(1);
    }

    @Test
    void takeWaitsForADelayedKeyWithTheRealClock() throws InterruptedException {
        var queue = new RateLimitedQueue<String>(BACKOFF_ONLY);
        queue.addAfter("a", Duration.ofMillis(20));
        assertThat(queue.take(Duration.ofSeconds(5))).contains("a");
        assertThat(queue.take(Duration.ZERO)).isEmpty();
    }
}

package io.lbk8s.reconcile;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keys to reconcile, with client-go's workqueue guarantees: a key waits at most once however often it is added (events
 * for it fold into one reconcile); a key being reconciled that is added again is reconciled once more after it is
 * {@link #done}, never by two threads at once; a failed key comes back after a delay that grows with its failures in a
 * row ({@link RetryPolicy}) until it is {@link #forget forgotten}; {@link #addAfter} adds a key later.
 */
public final class RateLimitedQueue<K> {
    private record Due<K>(long at, long order, K key) {}

    private final Ticker ticker;
    private final ItemBackoff<K> backoff;
    private final TokenBucket bucket;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<K> ready = new ArrayDeque<>();
    private final Set<K> dirty = new HashSet<>(); // waiting in ready, or added again while processing
    private final Set<K> processing = new HashSet<>();
    private final Map<K, Long> addedAt = new HashMap<>();
    private final Map<K, Long> startedAt = new HashMap<>();
    private final PriorityQueue<Due<K>> later = new PriorityQueue<>(
            (a, b) -> a.at() != b.at() ? Long.compare(a.at(), b.at()) : Long.compare(a.order(), b.order()));
    private final Map<K, Long> dueAt = new HashMap<>(); // the live entry of each key in later; older ones are skipped
    private long dueOrder;
    private volatile QueueMetrics metrics = QueueMetrics.NONE;

    public RateLimitedQueue(RetryPolicy policy) {
        this(policy, Ticker.SYSTEM);
    }

    public RateLimitedQueue(RetryPolicy policy, Ticker ticker) {
        this.ticker = ticker;
        this.backoff = new ItemBackoff<>(policy);
        this.bucket = new TokenBucket(policy, ticker.nanos());
    }

    /** Where the queue tells what it does (counted from here on). */
    public void measure(QueueMetrics metrics) {
        this.metrics = metrics;
    }

    public void add(K key) {
        lock.lock();
        try {
            addNow(key, ticker.nanos());
        } finally {
            lock.unlock();
        }
    }

    /** Adds {@code key} once {@code delay} has passed; of two delays for one key the sooner counts. */
    public void addAfter(K key, Duration delay) {
        lock.lock();
        try {
            long now = ticker.nanos();
            if (!delay.isPositive()) {
                addNow(key, now);
                return;
            }
            long at = now + delay.toNanos();
            Long already = dueAt.get(key);
            if (already != null && already <= at) {
                return;
            }
            dueAt.put(key, at);
            later.add(new Due<>(at, dueOrder++, key));
            changed.signalAll(); // a taker may sleep until a later time
        } finally {
            lock.unlock();
        }
    }

    /** Adds a failed key back after its backoff (or the shared limit, whichever is longer); that delay. */
    public Duration addRateLimited(K key) {
        lock.lock();
        try {
            Duration delay = Duration.ofNanos(Math.max(backoff.next(key), bucket.reserve(ticker.nanos())));
            metrics.retried();
            addAfter(key, delay);
            return delay;
        } finally {
            lock.unlock();
        }
    }

    /** The key succeeded: its next failure starts again from the first delay. */
    public void forget(K key) {
        lock.lock();
        try {
            backoff.forget(key);
        } finally {
            lock.unlock();
        }
    }

    /** Failures of {@code key} in a row since it was last forgotten. */
    public int failures(K key) {
        lock.lock();
        try {
            return backoff.failures(key);
        } finally {
            lock.unlock();
        }
    }

    /** The oldest ready key, now, or empty; a key returned is processing until {@link #done}. */
    public Optional<K> poll() {
        lock.lock();
        try {
            long now = ticker.nanos();
            promoteDue(now);
            return ready.isEmpty() ? Optional.empty() : Optional.of(takeFirst(now));
        } finally {
            lock.unlock();
        }
    }

    /** The oldest ready key, waiting for one up to {@code timeout}; a key returned is processing until {@link #done}. */
    public Optional<K> take(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long deadline = ticker.nanos() + timeout.toNanos();
            while (true) {
                long now = ticker.nanos();
                promoteDue(now);
                if (!ready.isEmpty()) {
                    return Optional.of(takeFirst(now));
                }
                long wait = deadline - now;
                if (wait <= 0) {
                    return Optional.empty();
                }
                Due<K> next = later.peek();
                changed.awaitNanos(next == null ? wait : Math.min(wait, Math.max(1, next.at() - now)));
            }
        } finally {
            lock.unlock();
        }
    }

    /** The reconcile of {@code key} ended: if it was added meanwhile, it is ready again. */
    public void done(K key) {
        lock.lock();
        try {
            long now = ticker.nanos();
            if (!processing.remove(key)) {
                return;
            }
            metrics.worked(now - startedAt.remove(key));
            if (dirty.contains(key)) {
                ready.addLast(key);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Keys ready to be taken (not those being reconciled, nor those to be added later). */
    public int depth() {
        lock.lock();
        try {
            return ready.size();
        } finally {
            lock.unlock();
        }
    }

    /** How long until the soonest key added for later is ready, if any. */
    public Optional<Duration> untilNextDue() {
        lock.lock();
        try {
            skipReplaced();
            Due<K> next = later.peek();
            return next == null
                    ? Optional.empty()
                    : Optional.of(Duration.ofNanos(Math.max(0, next.at() - ticker.nanos())));
        } finally {
            lock.unlock();
        }
    }

    private void addNow(K key, long now) {
        if (!dirty.add(key)) {
            return;
        }
        addedAt.put(key, now);
        metrics.added();
        if (processing.contains(key)) {
            return;
        }
        ready.addLast(key);
        changed.signalAll();
    }

    private K takeFirst(long now) {
        K key = ready.removeFirst();
        dirty.remove(key);
        processing.add(key);
        startedAt.put(key, now);
        metrics.waited(now - addedAt.remove(key));
        return key;
    }

    private void promoteDue(long now) {
        skipReplaced();
        while (!later.isEmpty() && later.peek().at() <= now) {
            K key = later.poll().key();
            dueAt.remove(key);
            addNow(key, now);
            skipReplaced();
        }
    }

    /** Drops entries a sooner addAfter of the same key replaced. */
    private void skipReplaced() {
        while (!later.isEmpty()
                && !Long.valueOf(later.peek().at())
                        .equals(dueAt.get(later.peek().key()))) {
            later.poll();
        }
    }
}

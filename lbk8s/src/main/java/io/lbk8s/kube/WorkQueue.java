package io.lbk8s.kube;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue of keys to reconcile that holds each key at most once: informer events for a key that is already waiting
 * fold into one reconcile. Consumed by a single thread, so reconciles never run concurrently.
 */
public final class WorkQueue<K> {
    private final LinkedHashSet<K> waiting = new LinkedHashSet<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();

    public void add(K key) {
        lock.lock();
        try {
            waiting.add(key);
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The oldest waiting key, or empty after the timeout. */
    public Optional<K> take(long timeout, TimeUnit unit) throws InterruptedException {
        lock.lock();
        try {
            long nanos = unit.toNanos(timeout);
            while (waiting.isEmpty()) {
                if (nanos <= 0) {
                    return Optional.empty();
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            K first = waiting.getFirst();
            waiting.removeFirst();
            return Optional.of(first);
        } finally {
            lock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }
}

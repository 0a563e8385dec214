package io.lbk8s.reconcile;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer → queue → reconcile loop both roles run on one thread: takes a key, reconciles it, and puts it back as
 * its {@link ReconcileResult} says. A reconcile that throws is logged and retried like a {@link ReconcileResult.Retry}.
 */
public final class ReconcileLoop<K> {
    private static final Logger log = LoggerFactory.getLogger(ReconcileLoop.class);

    @FunctionalInterface
    public interface Reconciler<K> {
        ReconcileResult reconcile(K key);
    }

    /** Upkeep after each key, and after {@code idle} without one ({@code idle} true): it may read or add to the queue. */
    @FunctionalInterface
    public interface AfterPass {
        void after(boolean idle);
    }

    private final RateLimitedQueue<K> queue;
    private final Reconciler<K> reconciler;
    private final Duration idle;
    private final AfterPass afterPass;

    public ReconcileLoop(RateLimitedQueue<K> queue, Reconciler<K> reconciler, Duration idle, AfterPass afterPass) {
        this.queue = queue;
        this.reconciler = reconciler;
        this.idle = idle;
        this.afterPass = afterPass;
    }

    /** Runs on the calling thread while {@code going} holds, until the thread is interrupted. */
    public void run(BooleanSupplier going) {
        while (going.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
            Optional<K> next;
            try {
                next = queue.take(idle);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            next.ifPresent(this::process);
            afterPass.after(next.isEmpty());
        }
    }

    /** Reconciles the key that is ready now, if any, without waiting (for tests with a {@link Ticker} of their own). */
    boolean processReady() {
        Optional<K> next = queue.poll();
        next.ifPresent(this::process);
        return next.isPresent();
    }

    private void process(K key) {
        try {
            ReconcileResult result;
            try {
                result = reconciler.reconcile(key);
            } catch (RuntimeException e) {
                log.error("reconcile of {} failed unexpectedly, will retry", key, e);
                result = ReconcileResult.RETRY;
            }
            switch (result) {
                case ReconcileResult.Done _ -> queue.forget(key);
                case ReconcileResult.Retry _ -> {
                    Duration delay = queue.addRateLimited(key);
                    log.debug("{} again in {} ms ({} failure(s) in a row)", key, delay.toMillis(), queue.failures(key));
                }
                case ReconcileResult.RetryAfter(Duration delay) -> {
                    queue.forget(key);
                    queue.addAfter(key, delay);
                }
            }
        } finally {
            queue.done(key);
        }
    }
}

package io.lbk8s.controller;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Folds a burst of configuration changes (one {@code kubectl apply} of many pools, or of pools and Services together)
 * into one: the configuration is applied once no change has come for {@link #QUIET}, or at the latest
 * {@link #LONGEST} after the first, and until it is applied no Service gets a new address. So the order of objects
 * inside one apply does not change what any Service gets; a Service created right after a configuration change waits
 * up to {@link #QUIET} longer for its address.
 */
final class ConfigSettling implements AutoCloseable {
    static final Duration QUIET = Duration.ofMillis(300);
    static final Duration LONGEST = Duration.ofSeconds(3);

    private final Runnable apply;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("config-settling").daemon().factory());
    private long seen;
    private long applied;
    private boolean waiting;
    private long firstChange;
    private long lastChange;

    /** {@code apply} asks for the configuration to be read and applied (it then calls {@link #applying}). */
    ConfigSettling(Runnable apply) {
        this.apply = apply;
    }

    /** A configuration object was added, changed or deleted. */
    synchronized void changed() {
        long now = System.nanoTime();
        seen++;
        lastChange = now;
        if (!waiting) {
            waiting = true;
            firstChange = now;
            timer.schedule(this::check, QUIET.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            wait = Math.min(QUIET.toNanos() - (now - lastChange), LONGEST.toNanos() - (now - firstChange));
            if (wait <= 0) {
                waiting = false;
            } else {
                timer.schedule(this::check, wait, TimeUnit.NANOSECONDS);
            }
        }
        if (wait <= 0) {
            apply.run();
        }
    }

    /** The configuration is being read now: every change seen so far is in it. Returns a token for {@link #applied}. */
    synchronized long applying() {
        return seen;
    }

    /** The configuration read at {@code token} is applied. */
    synchronized void applied(long token) {
        applied = Math.max(applied, token);
    }

    /** Whether a change has come that the applied configuration does not hold yet: no new address until it does. */
    synchronized boolean unsettled() {
        return applied < seen;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

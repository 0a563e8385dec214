package io.lbk8s.demo;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Ctrl-C (SIGINT) and SIGTERM interrupt the demo's main thread, which then tears the sandbox down itself, in order.
 * The JVM's default would run shutdown hooks instead, concurrently with the main thread still building or using the
 * sandbox: a namespace created after the hook removed the others would be left behind. Hence sun.misc.Signal (module
 * jdk.unsupported, kept for exactly this), and its compile-time warning.
 */
final class Interruption {
    private enum State {
        RUNNING,
        SHIELDED,
        TEARING_DOWN
    }

    /** The main thread stopped because of a signal. */
    static final class Interrupted extends RuntimeException {
        Interrupted(String signal) {
            super(signal);
        }
    }

    private final Thread main;
    private final Consumer<Boolean> onFirstSignal;
    private State state = State.RUNNING;
    private String signal;

    private Interruption(Thread main, Consumer<Boolean> onFirstSignal) {
        this.main = main;
        this.onFirstSignal = onFirstSignal;
    }

    /** {@code onFirstSignal} is told whether the main thread is shielded (and so finishes its call first). */
    static Interruption install(Consumer<Boolean> onFirstSignal) {
        var interruption = new Interruption(Thread.currentThread(), onFirstSignal);
        for (String name : new String[] {"INT", "TERM"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), interruption::received);
        }
        return interruption;
    }

    private void received(sun.misc.Signal s) {
        boolean first;
        boolean shielded;
        synchronized (this) {
            first = signal == null;
            if (first) {
                signal = "SIG" + s.getName();
            }
            shielded = state == State.SHIELDED;
            if (state == State.RUNNING) {
                main.interrupt();
            }
        }
        if (first) {
            onFirstSignal.accept(shielded);
        } else {
            // The teardown is bounded; a second Ctrl-C must not cut it short and leave namespaces behind.
            System.err.println("still removing the sandbox; it takes a few seconds");
        }
    }

    /**
     * Runs {@code call} without interrupting it: for a call that cleans up after its own failure and would leave
     * things behind if interrupted while doing so (creating the test network does). A signal meanwhile is acted on as
     * soon as it returns.
     */
    <T> T shielded(Callable<T> call) throws Exception {
        synchronized (this) {
            state = State.SHIELDED;
        }
        try {
            return call.call();
        } finally {
            synchronized (this) {
                state = State.RUNNING;
                if (signal != null) {
                    throw new Interrupted(signal);
                }
            }
        }
    }

    /** From now on signals no longer interrupt: the teardown must run to its end. Clears a pending interrupt. */
    synchronized void beginTeardown() {
        state = State.TEARING_DOWN;
        Thread.interrupted();
    }

    /** The signal that stopped the demo, e.g. {@code SIGINT}. */
    synchronized Optional<String> signal() {
        return Optional.ofNullable(signal);
    }

    /** 128 + the signal's number, as a shell reports a process stopped by it. */
    synchronized int exitCode() {
        return "SIGTERM".equals(signal) ? 143 : 130;
    }
}

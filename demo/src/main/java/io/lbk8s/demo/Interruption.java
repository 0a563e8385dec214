package io.lbk8s.demo;

import java.util.Optional;

/**
 * Ctrl-C (SIGINT) and SIGTERM interrupt the demo's main thread, which then tears the sandbox down itself, in order.
 * The JVM's default would run shutdown hooks instead, concurrently with the main thread still building or using the
 * sandbox: a namespace created after the hook removed the others would be left behind. Hence sun.misc.Signal (module
 * jdk.unsupported, kept for exactly this), and its compile-time warning.
 */
final class Interruption {
    private enum State { RUNNING, INTERRUPTED, TEARING_DOWN }

    private final Thread main;
    private State state = State.RUNNING;
    private String signal;
    private final Runnable onFirstSignal;

    private Interruption(Thread main, Runnable onFirstSignal) {
        this.main = main;
        this.onFirstSignal = onFirstSignal;
    }

    static Interruption install(Runnable onFirstSignal) {
        var interruption = new Interruption(Thread.currentThread(), onFirstSignal);
        for (String name : new String[] {"INT", "TERM"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), interruption::received);
        }
        return interruption;
    }

    private void received(sun.misc.Signal s) {
        boolean first;
        synchronized (this) {
            first = signal == null;
            if (first) {
                signal = "SIG" + s.getName();
            }
            if (state == State.RUNNING) {
                state = State.INTERRUPTED;
                main.interrupt();
            }
        }
        if (first) {
            onFirstSignal.run();
        } else {
            // The teardown is bounded; a second Ctrl-C must not cut it short and leave namespaces behind.
            System.err.println("still removing the sandbox; it takes a few seconds");
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

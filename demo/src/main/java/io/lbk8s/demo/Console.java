package io.lbk8s.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo's output. On a terminal it colours headings and redraws one live status line while something is awaited;
 * otherwise (CI, a pipe, {@code --plain}) it prints plain lines only, each once, so a log reads top to bottom.
 */
final class Console {
    private static final String[] SPINNER = {"|", "/", "-", "\\"};
    private static final Duration REDRAW = Duration.ofMillis(100);

    private final PrintStream out;
    private final boolean live;
    private final AtomicBoolean muted = new AtomicBoolean();

    Console(PrintStream out, boolean live) {
        this.out = out;
        this.live = live;
    }

    /** Live only on a terminal that can take escape codes, and not when asked for plain output. */
    static Console forStdout(boolean plain) {
        var console = System.console();
        boolean terminal = console != null && console.isTerminal();
        boolean dumb = "dumb".equals(System.getenv("TERM")) || System.getenv("NO_COLOR") != null;
        return new Console(System.out, terminal && !dumb && !plain);
    }

    /** After an interruption the steps' output would only be errors of a sandbox being torn down. */
    void mute() {
        muted.set(true);
    }

    synchronized void heading(String text) {
        if (muted.get()) {
            return;
        }
        out.println();
        out.println(live ? "\033[1;36m==> " + text + "\033[0m" : "==> " + text);
    }

    synchronized void line(String text) {
        if (!muted.get()) {
            out.println(text.isEmpty() ? "" : "  " + text);
        }
    }

    void lines(List<String> lines) {
        lines.forEach(this::line);
    }

    /** Printed even when muted: what the teardown did. */
    synchronized void always(String text) {
        out.println(text);
    }

    String good(String text) {
        return live ? "\033[32m" + text + "\033[0m" : text;
    }

    String bad(String text) {
        return live ? "\033[31m" + text + "\033[0m" : text;
    }

    /** Starts a wait shown as {@code ... what} and a timer; {@link Progress#done} prints how it ended. */
    Progress progress(String what) {
        return new Progress(what, true);
    }

    /** A wait shown live on a terminal only: in plain output its result line says enough (a table row, say). */
    Progress liveOnly(String what) {
        return new Progress(what, false);
    }

    final class Progress implements AutoCloseable {
        private final String what;
        private final long started = System.nanoTime();
        private volatile String detail = "";
        private final Thread redraw;

        private Progress(String what, boolean announce) {
            this.what = what;
            if (live) {
                redraw = Thread.ofVirtual().name("progress").start(this::redrawUntilDone);
            } else {
                redraw = null;
                if (announce) {
                    line("... " + what);
                }
            }
        }

        /** Shown after the timer on a terminal; not printed in plain mode (it changes too often for a log). */
        void detail(String text) {
            detail = text;
        }

        Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - started);
        }

        /** Ends the wait: {@code ok what: result (1.2 s)}. */
        void done(String result) {
            finish(good("ok") + " " + what + (result.isEmpty() ? "" : ": " + result) + " (" + Format.duration(elapsed())
                    + ")");
        }

        void failed(String result) {
            finish(bad("FAILED") + " " + what + ": " + result + " (after " + Format.duration(elapsed()) + ")");
        }

        private void finish(String text) {
            stopRedraw();
            synchronized (Console.this) {
                if (live && !muted.get()) {
                    out.print("\r\033[2K");
                }
                line(text);
            }
        }

        @Override
        public void close() {
            stopRedraw();
            synchronized (Console.this) {
                if (live) {
                    out.print("\r\033[2K");
                    out.flush();
                }
            }
        }

        private void stopRedraw() {
            if (redraw != null && redraw.isAlive()) {
                redraw.interrupt();
                try {
                    redraw.join(REDRAW.multipliedBy(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void redrawUntilDone() {
            for (int tick = 0; !Thread.currentThread().isInterrupted(); tick++) {
                synchronized (Console.this) {
                    if (!muted.get()) {
                        out.print("\r\033[2K  " + SPINNER[tick % SPINNER.length] + " " + what + "  "
                                + Format.seconds(elapsed()) + (detail.isEmpty() ? "" : "  " + detail));
                        out.flush();
                    }
                }
                try {
                    Thread.sleep(REDRAW);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}

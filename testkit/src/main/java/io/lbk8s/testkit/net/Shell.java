package io.lbk8s.testkit.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs commands with a time limit; every wait here is bounded. */
public final class Shell {

    /** Generous for setup commands, which take milliseconds; a hang is a bug to report, not to wait out. */
    public static final Duration SETUP_TIMEOUT = Duration.ofSeconds(10);

    private static final Duration AFTER_KILL = Duration.ofSeconds(2);

    /**
     * Runs "$@" until it exits, this script gets SIGTERM, or its stdin closes (its owner died). bash gives background
     * jobs /dev/null as stdin, so the watcher reads the real one through fd 3, with a builtin so that no process of
     * its own is left behind.
     */
    public static final String DIES_WITH_STDIN = "exec 3<&0; \"$@\" & child=$!; "
            + "(while read -r -u 3 _; do :; done; kill $child 2>/dev/null) & watcher=$!; "
            + "trap 'kill $child 2>/dev/null; wait $child; kill $watcher 2>/dev/null' TERM INT; "
            + "wait $child; status=$?; kill $watcher 2>/dev/null; exit $status";

    private Shell() {}

    /** Runs a command; a non-zero exit is a result, not an error. */
    public static CommandResult run(Duration timeout, List<String> command) {
        return run(timeout, command, null);
    }

    public static CommandResult run(Duration timeout, List<String> command, String stdin) {
        Process process;
        try {
            process = builder(command).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start `" + commandLine(command) + "`: " + e.getMessage(), e);
        }
        Thread writer = Thread.ofVirtual().start(() -> feed(process.getOutputStream(), stdin));
        Collector out = Collector.start(process.getInputStream());
        Collector err = Collector.start(process.getErrorStream());
        boolean finished = waitFor(process, timeout);
        if (!finished) {
            destroyTree(process.toHandle(), true);
            waitFor(process, AFTER_KILL);
        }
        join(writer);
        String stdout = out.text();
        String stderr = err.text();
        return new CommandResult(finished ? process.exitValue() : CommandResult.TIMED_OUT, stdout, stderr);
    }

    /** Runs a command that must succeed; returns its stdout. */
    public static String check(Duration timeout, List<String> command) throws IOException {
        return check(timeout, command, null);
    }

    public static String check(Duration timeout, List<String> command, String stdin) throws IOException {
        CommandResult result = run(timeout, command, stdin);
        if (result.timedOut()) {
            throw new IOException("`" + commandLine(command) + "` did not finish within " + timeout
                    + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
        }
        if (!result.ok()) {
            throw new IOException("`" + commandLine(command) + "` exited with " + result.exitCode() + ": "
                    + (result.stderr().isBlank()
                            ? result.stdout().strip()
                            : result.stderr().strip())
                    + (stdin == null ? "" : "\ninput was:\n" + stdin));
        }
        return result.stdout();
    }

    /** A builder with an environment that gives parsable output and no proxy surprises. */
    static ProcessBuilder builder(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.put("PATH", Tool.searchPath());
        env.put("LC_ALL", "C");
        // Namespaces cannot reach any proxy; curl would try and fail confusingly.
        env.keySet().removeIf(name -> name.toLowerCase(java.util.Locale.ROOT).endsWith("_proxy"));
        return builder;
    }

    /** Signals a process and everything it started, children first seen before the parent goes. */
    static void destroyTree(ProcessHandle root, boolean forcibly) {
        List<ProcessHandle> descendants = root.descendants().toList();
        signal(root, forcibly);
        descendants.forEach(handle -> signal(handle, forcibly));
    }

    private static void signal(ProcessHandle handle, boolean forcibly) {
        if (forcibly) {
            handle.destroyForcibly();
        } else {
            handle.destroy();
        }
    }

    /** {@code ip netns exec NAMESPACE command...}: ip remounts /sys for the namespace, which nsenter does not. */
    public static List<String> inNamespace(String namespace, List<String> command) {
        return Stream.concat(Stream.of(Tool.IP.path(), "netns", "exec", namespace), command.stream())
                .toList();
    }

    public static String commandLine(List<String> command) {
        return command.stream()
                .map(word -> word.isEmpty() || word.matches(".*[\\s'\"*$\\\\;|&<>()].*")
                        ? "'" + word.replace("'", "'\\''") + "'"
                        : word)
                .collect(Collectors.joining(" "));
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyTree(process.toHandle(), true);
            return false;
        }
    }

    private static void feed(OutputStream stdin, String text) {
        try (stdin) {
            if (text != null) {
                stdin.write(text.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException ignored) {
            // the command exited without reading all of its input; its exit code tells what happened
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(AFTER_KILL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Drains a stream on a virtual thread so a chatty command never blocks on a full pipe. */
    private record Collector(Thread thread, ByteArrayOutputStream buffer) {

        static Collector start(InputStream in) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            Thread thread = Thread.ofVirtual().start(() -> {
                try (in) {
                    in.transferTo(new OutputStream() {
                        @Override
                        public void write(int b) {
                            synchronized (buffer) {
                                buffer.write(b);
                            }
                        }

                        @Override
                        public void write(byte[] b, int off, int len) {
                            synchronized (buffer) {
                                buffer.write(b, off, len);
                            }
                        }
                    });
                } catch (IOException ignored) {
                    // stream closed because the process was killed; keep what arrived
                }
            });
            return new Collector(thread, buffer);
        }

        /** What arrived; a grandchild still holding the pipe cannot make this wait longer than a moment. */
        String text() {
            join(thread);
            synchronized (buffer) {
                return buffer.toString(StandardCharsets.UTF_8);
            }
        }
    }
}

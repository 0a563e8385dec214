package io.lbk8s.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A process started inside a namespace by {@link TestNetwork#start}. `ip netns exec` execs the
 * command, so {@link #pid()} is the command's own pid and signals reach it directly. Its stdout and
 * stderr are appended to {@link #logFile()}, from byte {@link #logOffset()} on. Its stdin is a pipe
 * from this JVM, so it reaches end of file when the JVM dies (see {@link #closeStdin()}).
 *
 * @param namespace the namespace it runs in
 * @param command   the command as given (without the `ip netns exec` prefix)
 * @param logFile   where its output goes
 * @param logOffset where its own output begins in logFile (earlier output of another run may precede)
 * @param process   the process
 */
public record NamespacedProcess(String namespace, List<String> command, Path logFile, long logOffset, Process process) {

    private static final Duration POLL = Duration.ofMillis(20);

    public NamespacedProcess {
        command = List.copyOf(command);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM to the process only, so it can shut down the way it would in production. */
    public void terminate() {
        process.destroy();
    }

    /** SIGKILL to the process and every process it started. */
    public void kill() {
        Shell.destroyTree(process.toHandle(), true);
    }

    /** Waits at most {@code timeout}; the exit code, or empty if still running. */
    public OptionalInt waitFor(Duration timeout) {
        try {
            if (process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return OptionalInt.of(process.exitValue());
            }
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        }
    }

    /** Terminates, waits up to {@code grace}, then kills the tree; returns the exit code if it exited by itself. */
    public OptionalInt stop(Duration grace) {
        List<ProcessHandle> descendants = process.toHandle().descendants().toList();
        terminate();
        OptionalInt exit = waitFor(grace);
        kill();
        descendants.forEach(ProcessHandle::destroyForcibly);
        waitFor(Duration.ofSeconds(2));
        return exit;
    }

    /** Closes the process's stdin: programs that watch it (test-api-server) then stop. */
    public void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /**
     * Waits until a line of this process's output matches {@code pattern} (with {@code find}) and
     * returns that line. Fails at once if the process exits without printing it, or after
     * {@code timeout}; the message shows the last lines of the log.
     */
    public String awaitLogLine(Pattern pattern, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        LogReader reader = new LogReader(logFile, logOffset);
        while (true) {
            boolean exited = !process.isAlive();
            // Read once more after seeing the exit, so the last lines it wrote are not missed.
            for (String line : reader.newLines(exited)) {
                if (pattern.matcher(line).find()) {
                    return line;
                }
            }
            if (exited) {
                throw new IllegalStateException("`" + Shell.commandLine(command) + "` in " + namespace
                        + " exited with " + process.exitValue() + " before printing a line matching /" + pattern
                        + "/; log " + logFile + " ends with:\n" + logTail(20));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no line matching /" + pattern + "/ from `"
                        + Shell.commandLine(command) + "` in " + namespace + " within " + timeout + "; log " + logFile
                        + " ends with:\n" + logTail(20));
            }
            Leftovers.sleep(POLL);
        }
    }

    public String awaitLogLine(String regex, Duration timeout) {
        return awaitLogLine(Pattern.compile(regex), timeout);
    }

    /** This process's output so far. */
    public String log() {
        try (FileChannel channel = FileChannel.open(logFile, StandardOpenOption.READ)) {
            long size = channel.size();
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(Math.max(0, size - logOffset), 16 << 20));
            channel.read(buffer, logOffset);
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last {@code lines} lines of this process's output. */
    public String logTail(int lines) {
        Deque<String> tail = new ArrayDeque<>();
        log().lines().forEach(line -> {
            tail.addLast(line);
            if (tail.size() > lines) {
                tail.removeFirst();
            }
        });
        return String.join("\n", tail);
    }

    @Override
    public String toString() {
        return "NamespacedProcess[pid=" + pid() + ", namespace=" + namespace + ", command=`"
                + Shell.commandLine(command) + "`, log=" + logFile + "]";
    }

    /** Reads the lines appended since the last call; a line still being written waits for its newline. */
    private static final class LogReader {
        private final Path file;
        private long position;
        private final StringBuilder partial = new StringBuilder();

        LogReader(Path file, long position) {
            this.file = file;
            this.position = position;
        }

        List<String> newLines(boolean lastRead) {
            if (!Files.exists(file)) {
                return List.of();
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
                int n;
                while ((n = channel.read(buffer, position)) > 0) {
                    position += n;
                    // Logs are ASCII in practice; a multi-byte character split across reads only garbles itself.
                    partial.append(new String(buffer.array(), 0, n, StandardCharsets.UTF_8));
                    buffer.clear();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            int end = partial.lastIndexOf("\n");
            List<String> lines;
            if (lastRead) {
                lines = partial.toString().lines().toList();
                partial.setLength(0);
            } else if (end < 0) {
                lines = List.of();
            } else {
                lines = partial.substring(0, end).lines().toList();
                partial.delete(0, end + 1);
            }
            return lines;
        }
    }
}

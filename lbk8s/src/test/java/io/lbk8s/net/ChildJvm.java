package io.lbk8s.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started inside a network namespace ({@code ip netns exec}), so that everything it opens, sockets and
 * NetworkInterface views alike, belongs to that namespace. Talks line by line over stdin/stdout.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final PrintWriter input;
    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(10_000);

    private ChildJvm(Process process) {
        this.process = process;
        this.input = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.offer(line);
                }
            } catch (IOException ignored) {
                // the child is gone
            }
        });
    }

    public static ChildJvm start(String namespace, Class<?> main, String... args) throws IOException {
        return start(namespace, List.of(), main, args);
    }

    /** The same, the JVM started through {@code wrapper} (setpriv, say) inside the namespace. */
    static ChildJvm start(String namespace, List<String> wrapper, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        command.addAll(wrapper);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                classPath(),
                main.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(
                new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Under surefire java.class.path may be only the booter jar; the real one is in surefire.test.class.path. */
    static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** Sends one command and returns the child's answer line ("ok ..." or "error ..."), waiting at most 15 s. */
    public String command(String command) throws InterruptedException {
        input.println(command);
        return nextLine(15);
    }

    /** The next line starting with "ok", "error" or "ready"; other lines (JVM warnings) are skipped. */
    public String nextLine(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && (line.startsWith("ok") || line.startsWith("error") || line.startsWith("ready"))) {
                return line;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                return "error: child exited with " + process.exitValue();
            }
        }
        return "error: no answer within " + seconds + " s";
    }

    /** All output lines so far, for failure messages. */
    public List<String> drain() {
        List<String> out = new ArrayList<>();
        lines.drainTo(out);
        return out;
    }

    /** Stops the child (if any), then deletes the namespaces it ran in (if any), even when stopping failed. */
    static void closeThenRemove(ChildJvm child, TestNetwork network) throws InterruptedException {
        try {
            if (child != null) {
                child.close();
            }
        } finally {
            if (network != null) {
                network.close();
            }
        }
    }

    /**
     * Sends {@code signal} (STOP, CONT) to the child JVM itself: {@code ip netns exec} and setpriv exec it, so the
     * process we started is the JVM. SIGSTOP freezes every thread at once, as a hung node would.
     */
    void signal(String signal) {
        TestNetwork.must("kill", "-" + signal, Long.toString(process.pid()));
    }

    /** Sends one command without waiting for its answer; {@link #nextLine} reads it. */
    void send(String command) {
        input.println(command);
    }

    /** SIGKILL, as a crash or the OOM killer would: no shutdown code runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        input.println("quit");
        input.close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }
}

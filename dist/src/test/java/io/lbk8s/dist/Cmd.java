package io.lbk8s.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion within a time limit; stdout and stderr go to files (no pipe can fill up). */
record Cmd(List<String> command, int exit, String out, String err) {

    static Cmd run(Duration timeout, List<String> command) {
        return run(timeout, null, command);
    }

    /** env null: inherit the environment; otherwise exactly these variables. */
    static Cmd run(Duration timeout, Map<String, String> env, List<String> command) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("lbk8s-cmd", ".out");
            err = Files.createTempFile("lbk8s-cmd", ".err");
            var builder =
                    new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (env != null) {
                builder.environment().clear();
                builder.environment().putAll(env);
            }
            Process process = builder.start();
            boolean done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("timed out after " + timeout + ": " + String.join(" ", command) + "\nstdout: "
                        + Files.readString(out) + "\nstderr: " + Files.readString(err));
            }
            return new Cmd(command, process.exitValue(), Files.readString(out), Files.readString(err));
        } catch (IOException e) {
            throw new AssertionError("cannot run " + String.join(" ", command) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + String.join(" ", command), e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    Cmd ok() {
        if (exit != 0) {
            throw new AssertionError(this.toString());
        }
        return this;
    }

    @Override
    public String toString() {
        return String.join(" ", command) + " exited " + exit + "\nstdout: " + out + "\nstderr: " + err;
    }

    private static void deleteQuietly(Path path) {
        try {
            if (path != null) {
                Files.deleteIfExists(path);
            }
        } catch (IOException ignored) {
            // a temp file left behind
        }
    }
}

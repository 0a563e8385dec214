package io.lbk8s.testkit.net;

/**
 * What a finished (or timed-out) command printed. {@link #exitCode()} is {@link #TIMED_OUT} when the
 * command was killed because it ran past its time limit; stdout/stderr then hold what it printed so far.
 */
public record CommandResult(int exitCode, String stdout, String stderr) {

    /** Not a possible exit status of a process (0..255), so it cannot be confused with one. */
    public static final int TIMED_OUT = -1;

    public boolean ok() {
        return exitCode == 0;
    }

    public boolean timedOut() {
        return exitCode == TIMED_OUT;
    }

    /** stdout and stderr together, for assertion messages. */
    public String output() {
        return stdout + (stderr.isEmpty() ? "" : (stdout.isEmpty() || stdout.endsWith("\n") ? "" : "\n") + stderr);
    }
}

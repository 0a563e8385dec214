package io.lbk8s.install;

/** A reason install, uninstall or status cannot go on, said in one sentence to the user (no stack trace). */
public final class InstallProblem extends RuntimeException {
    public InstallProblem(String message) {
        super(message, null, false, false);
    }
}

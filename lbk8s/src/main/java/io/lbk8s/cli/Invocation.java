package io.lbk8s.cli;

import java.util.Optional;

/**
 * The name the user typed to start lbk8s, as the launcher found it in its {@code $0} ({@code LBK8S_EXECUTABLE}):
 * {@code kubectl-lbk8s} is kubectl's plugin, which the user types as {@code kubectl lbk8s}, so help and errors say
 * that; a shell completes the executable's own name. {@code kubectl_complete-lbk8s} is what kubectl runs to complete
 * the plugin's words.
 */
record Invocation(String executable) {
    static final String ENV = "LBK8S_EXECUTABLE";
    static final Invocation PLAIN = new Invocation("lbk8s");
    private static final String PLUGIN_PREFIX = "kubectl-";

    static Invocation fromEnvironment() {
        return of(System.getenv(ENV));
    }

    static Invocation of(String executable) {
        return Optional.ofNullable(executable)
                .map(name -> name.substring(name.lastIndexOf('/') + 1))
                .filter(name -> name.equals("lbk8s")
                        || name.equals(PLUGIN_PREFIX + "lbk8s")
                        || name.equals(KubectlCompletion.EXECUTABLE))
                .map(Invocation::new)
                .orElse(PLAIN);
    }

    /** The executable behind a command name: {@code kubectl lbk8s} is {@code kubectl-lbk8s}. */
    static Invocation ofCommandName(String commandName) {
        return of(commandName.replaceFirst(" ", "-"));
    }

    boolean kubectlPlugin() {
        return executable.startsWith(PLUGIN_PREFIX);
    }

    /** Started by kubectl to complete {@code kubectl lbk8s ...}: every argument is a word typed. */
    boolean kubectlCompletion() {
        return executable.equals(KubectlCompletion.EXECUTABLE);
    }

    /** What the user types: {@code kubectl lbk8s} for the plugin (kubectl's rule: a dash in the name is a space). */
    String commandName() {
        return kubectlPlugin() ? "kubectl " + executable.substring(PLUGIN_PREFIX.length()) : executable;
    }
}

package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.install.InstallProblem;
import io.lbk8s.kube.ApiErrors;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every command ends on a user's error: one sentence on stderr and a non-zero exit code, never a stack trace.
 * A command throws; {@link Main} hands what it throws here. A bad flag exits 2, a problem met while running 1, an
 * interrupt 130. Anything else is a bug and keeps picocli's stack trace.
 */
final class OneLineErrors {
    private OneLineErrors() {}

    static CommandLine installOn(CommandLine cli) {
        return cli.setParameterExceptionHandler(OneLineErrors::badArguments)
                .setExecutionExceptionHandler(OneLineErrors::failed);
    }

    private static int badArguments(ParameterException e, String[] args) {
        CommandLine cli = e.getCommandLine();
        String suggestion = e instanceof UnmatchedArgumentException unmatched
                        && !unmatched.getSuggestions().isEmpty()
                ? "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?"
                : "";
        PrintWriter err = cli.getErr();
        err.println("error: " + e.getMessage() + suggestion + " (see "
                + cli.getCommandSpec().qualifiedName() + " --help)");
        err.flush();
        return cli.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static int failed(Exception e, CommandLine cli, ParseResult parsed) throws Exception {
        cli.getOut().flush(); // what the command printed before it failed comes first
        PrintWriter err = cli.getErr();
        try {
            switch (e) {
                case InstallProblem problem -> err.println("error: " + problem.getMessage());
                case KubernetesClientException api ->
                    err.println("error: the API server refused or did not answer: " + ApiErrors.oneLine(api));
                // KubeOptions (an unreadable kubeconfig), a duration
                case IllegalArgumentException said -> err.println("error: " + said.getMessage());
                // HealthOptions (the metrics port taken)
                case UncheckedIOException said -> err.println("error: " + said.getMessage());
                case InterruptedException interrupted -> {
                    Thread.currentThread().interrupt();
                    err.println("interrupted");
                    return 130;
                }
                default -> throw e;
            }
            return 1;
        } finally {
            err.flush();
        }
    }
}

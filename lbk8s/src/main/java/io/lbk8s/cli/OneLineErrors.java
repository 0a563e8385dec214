package io.lbk8s.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.install.InstallProblem;
import io.lbk8s.kube.ApiErrors;
import java.io.PrintWriter;

/** How the cluster-facing commands end: an exit code, and for a failure one sentence on stderr, never a stack trace. */
final class OneLineErrors {
    private OneLineErrors() {}

    @FunctionalInterface
    interface Command {
        int run() throws InterruptedException;
    }

    static int run(PrintWriter out, PrintWriter err, Command command) {
        try {
            return command.run();
        } catch (InstallProblem e) {
            err.println("error: " + e.getMessage());
            return 1;
        } catch (KubernetesClientException e) {
            err.println("error: the API server refused or did not answer: " + ApiErrors.oneLine(e));
            return 1;
        } catch (IllegalArgumentException e) { // KubeOptions: an unreadable kubeconfig
            err.println("error: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("interrupted");
            return 130;
        } finally {
            out.flush();
            err.flush();
        }
    }
}

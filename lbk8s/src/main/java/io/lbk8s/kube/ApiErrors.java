package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** Turns an API failure into one line for the user. */
public final class ApiErrors {
    private ApiErrors() {}

    public static String oneLine(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        Throwable cause = e.getCause();
        if ((message == null || message.startsWith("Operation:") || message.startsWith("An error has occurred"))
                && cause != null) {
            message = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        }
        return String.valueOf(message).lines().findFirst().orElse("");
    }
}

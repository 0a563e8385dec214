package io.lbk8s.election;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.UUID;

/** Who runs for leader ({@code identity}, unique among the replicas) and with which settings. */
public record Candidacy(String identity, ElectionSettings settings) {

    /**
     * The Pod's name where there is one (unique, and what {@code kubectl get pods} shows); elsewhere the host name with a
     * random suffix, so that two processes on one host are two candidates.
     */
    public static String identity(Optional<String> podName) {
        return podName.filter(s -> !s.isBlank())
                .orElseGet(() -> hostName() + "-" + UUID.randomUUID().toString().substring(0, 5));
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "lbk8s-controller";
        }
    }
}

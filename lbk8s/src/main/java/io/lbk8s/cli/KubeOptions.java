package io.lbk8s.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** kubectl's connection options; without them, the usual chain: in-cluster service account, then KUBECONFIG. */
final class KubeOptions {
    @Option(names = "--kubeconfig", description = "Path to a kubeconfig file.")
    Path kubeconfig;

    @Option(names = "--context", description = "The kubeconfig context to use.")
    String context;

    /** The client; a kubeconfig that cannot be read ends the command with an IllegalArgumentException's sentence. */
    KubernetesClient client() {
        Config config;
        if (kubeconfig != null) {
            try {
                config = Config.fromKubeconfig(context, Files.readString(kubeconfig), kubeconfig.toString());
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("kubeconfig " + kubeconfig + " does not exist", e);
            } catch (AccessDeniedException e) {
                throw new IllegalArgumentException(
                        "kubeconfig " + kubeconfig + " is not readable (permission denied)", e);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage(), e);
            }
        } else {
            config = Config.autoConfigure(context);
        }
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}

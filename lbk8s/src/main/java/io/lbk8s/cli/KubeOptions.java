package io.lbk8s.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lbk8s.kube.ClientKeys;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * kubectl's connection options, spelt as kubectl spells them: kubectl hands a plugin none of its own flags, so
 * {@code kubectl lbk8s status --context prod} is read here. Without {@code --kubeconfig}, the usual chain: in-cluster
 * service account, then {@code KUBECONFIG} (a list separated by colons, merged as kubectl merges it), then
 * ~/.kube/config.
 */
final class KubeOptions {
    @Option(names = "--kubeconfig", description = "Path to a kubeconfig file (default: $KUBECONFIG, ~/.kube/config).")
    Path kubeconfig;

    @Option(names = "--context", description = "The kubeconfig context to use.")
    String context;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    Duration requestTimeout;

    @Option(
            names = "--request-timeout",
            paramLabel = "DURATION",
            description = "How long to wait for one API request, like 30s or 1m; 0: no limit (default: 10s).")
    void requestTimeout(String text) {
        requestTimeout = DurationFlags.parse(command, "--request-timeout", text);
    }

    /** The client; a kubeconfig that cannot be read ends the command with an IllegalArgumentException's sentence. */
    KubernetesClient client() {
        return client(new KubernetesSerialization());
    }

    /** The client, decoding with {@code serialization}. */
    KubernetesClient client(KubernetesSerialization serialization) {
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
        useReadableClientKey(config);
        if (requestTimeout != null) {
            config.setRequestTimeout((int) Math.min(requestTimeout.toMillis(), Integer.MAX_VALUE));
        }
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(serialization)
                .build();
    }

    /** An EC or Ed25519 client key, which fabric8 would read as RSA, given to it as PKCS #8 with its algorithm. */
    private static void useReadableClientKey(Config config) {
        String pem;
        try {
            if (config.getClientKeyData() != null) {
                pem = new String(
                        Base64.getDecoder().decode(config.getClientKeyData().strip()), UTF_8);
            } else if (config.getClientKeyFile() != null) {
                pem = Files.readString(Path.of(config.getClientKeyFile()));
            } else {
                return;
            }
        } catch (IOException | IllegalArgumentException unreadable) {
            return; // fabric8 reads it again and says what is wrong
        }
        ClientKeys.normalize(pem).ifPresent(key -> {
            config.setClientKeyData(Base64.getEncoder().encodeToString(key.pem().getBytes(UTF_8)));
            config.setClientKeyFile(null);
            config.setClientKeyAlgo(key.algorithm());
        });
    }
}

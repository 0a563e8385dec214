package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What an API-level test talks to: the real kube-apiserver emptied for it ({@code cluster.FreshApiServer}), or the
 * test API server where a written reason keeps it ({@link TestApiServer}: fault injection, the demo's default).
 */
public interface ApiServer extends AutoCloseable {

    /** Base URL, no trailing slash. */
    String url();

    /** A client configuration as the administrator, namespace {@code default}. */
    Config config();

    /** A shared client, closed by {@link #close()}. */
    KubernetesClient client();

    /** A new client, closed by {@link #close()} unless the caller closes it first. */
    KubernetesClient newClient();

    /** A new client that decodes with {@code serialization}, closed as {@link #newClient()}'s. */
    KubernetesClient newClient(KubernetesSerialization serialization);

    /** Creates every CustomResourceDefinition in the YAML or JSON files below {@code dir}; returns how many. */
    int createCrds(Path dir) throws IOException;

    /**
     * Creates the namespace unless it exists, and returns once Pods can be made in it (on a real server, once its
     * {@code default} ServiceAccount is there).
     */
    default void ensureNamespace(String name) {
        if (client().namespaces().withName(name).get() == null) {
            client().namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .build())
                    .create();
        }
    }

    /** The YAML and JSON files below {@code dir}, in name order: where {@link #createCrds} looks. */
    static List<Path> manifests(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".yaml")
                            || p.toString().endsWith(".yml")
                            || p.toString().endsWith(".json"))
                    .sorted()
                    .toList();
        }
    }

    /** Writes a kubeconfig as the administrator (for kubectl, the lbk8s CLI); returns {@code file}. */
    Path writeKubeconfig(Path file);

    /** As {@link #writeKubeconfig(Path)}, reaching this server through a TCP proxy on loopback port {@code port}. */
    Path writeKubeconfigThroughProxy(Path file, int port);

    @Override
    void close();
}

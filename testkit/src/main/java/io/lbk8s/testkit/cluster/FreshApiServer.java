package io.lbk8s.testkit.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lbk8s.testkit.ApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The JVM's real kube-apiserver ({@link RealApiServer#shared()}), emptied of what earlier tests made, for one test:
 * what envtest gives a Go test. Closing it closes its clients; the next one empties the server again.
 */
public final class FreshApiServer implements ApiServer {

    /** The user of {@link #client()}, {@link #newClient()} and {@link #writeKubeconfig(Path)}'s kubeconfig. */
    public static final String ADMINISTRATOR = "kubernetes-admin";

    private final RealApiServer server;
    private final long auditStart;
    private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
    private KubernetesClient client;

    private FreshApiServer(RealApiServer server) {
        this.server = server;
        this.auditStart = server.auditEnd();
    }

    /**
     * The shared server, emptied. Fails with what to run when there is no Kubernetes build ({@code ./test} makes
     * one).
     */
    public static FreshApiServer start() {
        try {
            RealApiServer shared = RealApiServer.shared();
            shared.empty(List.of());
            return new FreshApiServer(shared);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The shared server, emptied but for the CRDs defined below {@code crds} (e.g. {@code deploy/crds}), which it then
     * serves: one an earlier test left as its file defines it stays (with none of its objects), which spares deleting
     * and serving it again, the slowest part of emptying; any other CRD goes.
     */
    public static FreshApiServer startWithCrds(Path crds) {
        try {
            RealApiServer shared = RealApiServer.shared();
            shared.empty(definitions(shared, crds));
            FreshApiServer server = new FreshApiServer(shared);
            server.createCrds(crds);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<CustomResourceDefinition> definitions(RealApiServer server, Path dir) throws IOException {
        List<CustomResourceDefinition> definitions = new ArrayList<>();
        try (KubernetesClient client = server.newClient()) {
            for (Path file : ApiServer.manifests(dir)) {
                try (InputStream in = Files.newInputStream(file)) {
                    for (HasMetadata item : client.load(in).items()) {
                        if (item instanceof CustomResourceDefinition crd) {
                            definitions.add(crd);
                        }
                    }
                }
            }
        }
        return definitions;
    }

    @Override
    public String url() {
        return server.url();
    }

    /** As the administrator, namespace {@code default}; a request that fails is not retried, as on the test API server. */
    @Override
    public Config config() {
        try {
            return new ConfigBuilder(Pki.fabric8Config(server.kubeconfig()))
                    .withNamespace("default")
                    .withConnectionTimeout(5_000)
                    .withRequestTimeout(10_000)
                    .withRequestRetryBackoffLimit(0)
                    .withRequestRetryBackoffInterval(100)
                    .withWatchReconnectInterval(200)
                    .withWatchReconnectLimit(-1)
                    .withLoggingInterval(0)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized KubernetesClient client() {
        if (client == null) {
            client = newClient();
        }
        return client;
    }

    @Override
    public KubernetesClient newClient() {
        return newClient(new KubernetesSerialization());
    }

    @Override
    public KubernetesClient newClient(KubernetesSerialization serialization) {
        KubernetesClient made = new KubernetesClientBuilder()
                .withConfig(config())
                .withKubernetesSerialization(serialization)
                .build();
        clients.add(made);
        return made;
    }

    /**
     * Creates the CRDs and waits until the server serves each, as {@code kubectl wait --for condition=Established};
     * one that {@link #startWithCrds} kept as its file defines it is served already. Returns how many it serves.
     */
    @Override
    public int createCrds(Path dir) throws IOException {
        List<CustomResourceDefinition> created = new ArrayList<>();
        var crds = client().apiextensions().v1().customResourceDefinitions();
        for (CustomResourceDefinition crd : definitions(server, dir)) {
            CustomResourceDefinition kept =
                    crds.withName(crd.getMetadata().getName()).get();
            created.add(
                    kept != null && ClusterWipe.asDefined(kept, crd)
                            ? kept
                            : crds.resource(crd).create());
        }
        for (CustomResourceDefinition crd : created) {
            crds.withName(crd.getMetadata().getName())
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(condition -> condition
                                                            .getType()
                                                            .equals("Established")
                                                    && condition.getStatus().equals("True")),
                            30,
                            TimeUnit.SECONDS);
            awaitStorage(crd);
        }
        return created.size();
    }

    /**
     * Established is not yet served: a fresh CRD's list answers 429 "storage is (re)initializing" for a moment, which
     * the test clients (no retries, as on the test API server) would take for a failure.
     */
    private void awaitStorage(CustomResourceDefinition crd) {
        var version = crd.getSpec().getVersions().stream()
                .filter(v -> Boolean.TRUE.equals(v.getServed()))
                .findFirst()
                .orElseThrow();
        var context = new ResourceDefinitionContext.Builder()
                .withGroup(crd.getSpec().getGroup())
                .withVersion(version.getName())
                .withPlural(crd.getSpec().getNames().getPlural())
                .withKind(crd.getSpec().getNames().getKind())
                .withNamespaced(crd.getSpec().getScope().equals("Namespaced"))
                .build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                var resources = client().genericKubernetesResources(context);
                var list = new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                        .withLimit(1L)
                        .build();
                if (context.isNamespaceScoped()) {
                    resources.inAnyNamespace().list(list);
                } else {
                    resources.list(list);
                }
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 429 || System.nanoTime() > deadline) {
                    throw e;
                }
                ControlPlane.sleep(50);
            }
        }
    }

    /** A copy of the administrator's kubeconfig (its certificates stay where the server keeps them). */
    @Override
    public Path writeKubeconfig(Path file) {
        try {
            Path absolute = file.toAbsolutePath();
            Files.createDirectories(absolute.getParent());
            Files.copy(server.kubeconfig(), absolute, StandardCopyOption.REPLACE_EXISTING);
            return absolute;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The administrator's kubeconfig with the proxy's address (which the serving certificate covers: 127.0.0.1). */
    @Override
    public Path writeKubeconfigThroughProxy(Path file, int port) {
        String admin = readString(writeKubeconfig(file));
        try {
            return Files.writeString(
                    file, admin.replaceFirst("server: https://[^\\s]+", "server: https://127.0.0.1:" + port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A kubeconfig as the administrator with one context per entry of {@code namespaceByContext}, each with its own
     * default namespace, and {@code current} chosen: what {@code --context} and {@code -n} are tested against.
     */
    public Path writeKubeconfig(Path file, Map<String, String> namespaceByContext, String current) {
        String admin = readString(writeKubeconfig(file));
        // Pki.kubeconfig writes one cluster, one user and then its contexts and current-context, last
        StringBuilder contexts = new StringBuilder("contexts:\n");
        namespaceByContext.forEach((context, namespace) -> contexts.append("""
                - name: %s
                  context:
                    cluster: lbk8s-test
                    user: admin
                    namespace: %s
                """.formatted(context, namespace)));
        contexts.append("current-context: ").append(current).append('\n');
        try {
            return Files.writeString(file, admin.substring(0, admin.indexOf("contexts:\n")) + contexts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The requests served since this test got the server, from the server's audit log: those of {@link #ADMINISTRATOR}
     * (this test's clients and CLI runs), not kube-controller-manager's.
     */
    public List<AuditLog.Request> requests() {
        return server.requestsAfter(auditStart).stream()
                .filter(r -> r.user().equals(ADMINISTRATOR))
                .toList();
    }

    /** The kubectl built with the server, as the administrator. */
    public io.lbk8s.testkit.net.CommandResult kubectl(java.time.Duration timeout, String... arguments) {
        return server.kubectl(timeout, arguments);
    }

    @Override
    public void close() {
        clients.forEach(KubernetesClient::close);
    }
}

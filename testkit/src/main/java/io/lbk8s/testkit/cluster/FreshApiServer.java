package io.lbk8s.testkit.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
import java.util.stream.Stream;

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
            shared.empty();
            return new FreshApiServer(shared);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /** Creates the CRDs and waits until the server serves each, as {@code kubectl wait --for condition=Established}. */
    @Override
    public int createCrds(Path dir) throws IOException {
        List<CustomResourceDefinition> created = new ArrayList<>();
        var crds = client().apiextensions().v1().customResourceDefinitions();
        for (Path file : manifests(dir)) {
            try (InputStream in = Files.newInputStream(file)) {
                for (HasMetadata item : client().load(in).items()) {
                    if (item instanceof CustomResourceDefinition crd) {
                        created.add(crds.resource(crd).create());
                    }
                }
            }
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
        }
        return created.size();
    }

    private static List<Path> manifests(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".yaml")
                            || p.toString().endsWith(".yml")
                            || p.toString().endsWith(".json"))
                    .sorted()
                    .toList();
        }
    }

    @Override
    public void ensureNamespace(String name) {
        if (client().namespaces().withName(name).get() == null) {
            client().namespaces()
                    .resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .build())
                    .create();
        }
        // the ServiceAccount admission refuses a Pod until kube-controller-manager has made the namespace's default
        client().serviceAccounts()
                .inNamespace(name)
                .withName("default")
                .waitUntilCondition(java.util.Objects::nonNull, 30, TimeUnit.SECONDS);
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

package io.lbk8s.controller;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.testkit.ApiServer;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.cluster.FreshApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The real kube-apiserver, emptied, with the CRDs from {@code deploy/crds}, the {@code lbk8s-system} namespace, and a
 * controller running in-process that tests can stop and start again (a controller restart). Tests that break the
 * API server's watches or reads on purpose run on the test API server instead ({@link #startedOnTheTestApiServer()}):
 * the real one cannot break one resource's watches on demand.
 */
final class ControllerHarness implements AutoCloseable {
    static final String DEFAULT_NAMESPACE = "lbk8s-system";
    static final Duration PATIENCE = Duration.ofSeconds(15);

    final ApiServer server;
    final KubernetesClient client;
    private final ControllerSettings settings;
    private final String namespace;
    private KubernetesClient controllerClient;
    private Controller controller;
    PrometheusMeterRegistry registry;

    ControllerHarness(String namespace, Optional<String> lbClass) throws IOException {
        this(namespace, lbClass, Path.of("..", "deploy", "crds"));
    }

    /** With the CRDs of {@code crds} only (e.g. an upgrade that did not apply a new one). */
    ControllerHarness(String namespace, Optional<String> lbClass, Path crds) throws IOException {
        this(FreshApiServer.startWithCrds(crds), namespace, lbClass, crds);
    }

    private ControllerHarness(ApiServer server, String namespace, Optional<String> lbClass, Path crds)
            throws IOException {
        this.namespace = namespace;
        this.server = server;
        client = server.client();
        server.createCrds(crds);
        server.ensureNamespace(namespace);
        server.ensureNamespace("default");
        settings = new ControllerSettings(namespace, lbClass);
    }

    static ControllerHarness started() throws IOException {
        var harness = new ControllerHarness(DEFAULT_NAMESPACE, Optional.empty());
        harness.startController();
        return harness;
    }

    /** On the test API server, whose {@link #faults()} break watches and reads of one resource on demand. */
    static ControllerHarness startedOnTheTestApiServer() throws IOException {
        var harness = new ControllerHarness(
                TestApiServer.start(), DEFAULT_NAMESPACE, Optional.empty(), Path.of("..", "deploy", "crds"));
        harness.startController();
        return harness;
    }

    /** The test API server's fault injection; only for {@link #startedOnTheTestApiServer()}. */
    TestApiServer faults() {
        return (TestApiServer) server;
    }

    void startController() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        controllerClient = server.newClient();
        controller = new Controller(controllerClient, settings, registry);
        controller.start();
        controller.lead();
    }

    void stopController() {
        controller.close();
        controllerClient.close();
        controller = null;
    }

    Controller controller() {
        return controller;
    }

    // ---- configuration ----

    void configMap(String configYaml) {
        client.configMaps()
                .inNamespace(namespace)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ConfigResources.CONFIG_MAP_NAME)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withData(Map.of(ConfigResources.CONFIG_MAP_KEY, configYaml))
                        .build())
                .createOr(c -> c.update());
    }

    void pool(String name, Map<String, Object> spec) {
        pool(namespace, name, spec);
    }

    private void pool(String namespace, String name, Map<String, Object> spec) {
        GenericKubernetesResource pool = new GenericKubernetesResourceBuilder()
                .withApiVersion("metallb.io/v1beta1")
                .withKind("IPAddressPool")
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
        client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace(namespace)
                .resource(pool)
                .createOr(p -> p.update());
    }

    void pool(String name, String... addresses) {
        pool(name, Map.of("addresses", List.of(addresses)));
    }

    /** A second controller instance on the same API server, reading its pools in {@code namespace} and serving {@code lbClass}. */
    Second secondController(String namespace, String lbClass) {
        return second(namespace, Optional.of(lbClass));
    }

    /**
     * A second controller of the same class that leads too, as when an election fails (or is off), reading its pools
     * in {@code namespace}: two allocators over the same Services.
     */
    Second rivalController(String namespace) {
        return second(namespace, settings.lbClass());
    }

    private Second second(String namespace, Optional<String> lbClass) {
        server.ensureNamespace(namespace);
        KubernetesClient ownClient = server.newClient();
        Controller second = new Controller(
                ownClient,
                new ControllerSettings(namespace, lbClass),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        second.start();
        second.lead();
        return new Second(namespace, ownClient, second);
    }

    final class Second implements AutoCloseable {
        private final String namespace;
        private final KubernetesClient ownClient;
        private final Controller controller;

        private Second(String namespace, KubernetesClient ownClient, Controller controller) {
            this.namespace = namespace;
            this.ownClient = ownClient;
            this.controller = controller;
        }

        void pool(String name, String... addresses) {
            ControllerHarness.this.pool(namespace, name, Map.of("addresses", List.of(addresses)));
        }

        @Override
        public void close() {
            controller.close();
            ownClient.close();
        }
    }

    void deletePool(String name) {
        client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace(namespace)
                .withName(name)
                .delete();
    }

    /** Applies a multi-document manifest from the test resources exactly as written. */
    List<HasMetadata> apply(String resource) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/fixtures/" + resource)) {
            if (in == null) {
                throw new IOException("no test resource /fixtures/" + resource);
            }
            List<HasMetadata> items = client.load(in).items();
            for (HasMetadata item : items) {
                String ns = item.getMetadata().getNamespace();
                if (ns != null) {
                    server.ensureNamespace(ns);
                }
                client.resource(item).create();
            }
            return items;
        }
    }

    // ---- services ----

    Service service(String namespace, String name, UnaryOperator<ServiceBuilder> customize) {
        ServiceBuilder builder = new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withSelector(Map.of("app", name))
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withProtocol("TCP")
                .endPort()
                .endSpec();
        return client.services()
                .inNamespace(namespace)
                .resource(customize.apply(builder).build())
                .create();
    }

    Service service(String name) {
        return service("default", name, b -> b);
    }

    Service get(String namespace, String name) {
        return client.services().inNamespace(namespace).withName(name).get();
    }

    /** What another controller would write: the Service's status shows {@code ip}. */
    void setIngress(String namespace, String name, String ip) {
        Service service = get(namespace, name);
        service.setStatus(new ServiceStatusBuilder()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .endIngress()
                .endLoadBalancer()
                .build());
        client.services().inNamespace(namespace).resource(service).updateStatus();
    }

    List<String> ips(String namespace, String name) {
        Service service = get(namespace, name);
        return service == null
                ? List.of()
                : ServiceMapping.statusIps(service).stream()
                        .map(Object::toString)
                        .toList();
    }

    List<String> awaitIps(String namespace, String name) {
        return await().atMost(PATIENCE).until(() -> ips(namespace, name), ips -> !ips.isEmpty());
    }

    /** The pool annotation the controller writes right after the status (a second write). */
    void awaitPoolAnnotation(String namespace, String name, String pool) {
        await().atMost(PATIENCE)
                .until(
                        () -> Optional.ofNullable(
                                        get(namespace, name).getMetadata().getAnnotations())
                                .map(a -> a.get("metallb.io/ip-allocated-from-pool")),
                        Optional.of(pool)::equals);
    }

    String awaitIp(String name) {
        return awaitIps("default", name).getFirst();
    }

    List<Event> events(String namespace, String name) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    /**
     * Messages other than the one an Event gives before the controller has seen any pool. Where a test creates its
     * first pool and a Service together, the controller may see the Service first, as it may on a real cluster after
     * one {@code kubectl apply}, and say so before it says what the test awaits.
     */
    static final Predicate<String> PAST_NO_POOL = m -> !m.startsWith("no address pool is configured");

    Event awaitEvent(String namespace, String name, String reason) {
        return awaitEvent(namespace, name, reason, message -> true);
    }

    /** The newest Event of {@code reason} whose message {@code matches}. */
    Event awaitEvent(String namespace, String name, String reason, Predicate<String> matches) {
        return await().atMost(PATIENCE)
                .until(
                        () -> events(namespace, name).stream()
                                .filter(e -> reason.equals(e.getReason()) && matches.test(e.getMessage()))
                                .reduce((a, b) -> b),
                        Optional::isPresent)
                .get();
    }

    /** The status of the ConfigurationState the controller writes, as {@code kubectl get configurationstate} shows. */
    @SuppressWarnings("unchecked")
    Map<String, Object> configurationState() {
        GenericKubernetesResource state = client.genericKubernetesResources(io.lbk8s.kube.ConfigurationStates.CONTEXT)
                .inNamespace(namespace)
                .withName("controller")
                .get();
        Object status = state == null ? null : state.getAdditionalProperties().get("status");
        return status instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    String metrics() {
        return registry.scrape();
    }

    @Override
    public void close() {
        if (controller != null) {
            stopController();
        }
        client.close();
        server.close();
    }
}

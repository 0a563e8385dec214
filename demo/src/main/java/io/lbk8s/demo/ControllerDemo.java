package io.lbk8s.demo;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.controller.Controller;
import io.lbk8s.controller.ControllerSettings;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.testkit.TestApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The controller's part of the demo: an embedded API server, the controller, the reference design's pool and a
 * whoami Service, shown step by step as a user would see them with kubectl.
 */
public final class ControllerDemo {
    private static final String NS = "lbk8s-system";

    public static void main(String[] args) throws Exception {
        try (TestApiServer server = TestApiServer.start(); KubernetesClient client = server.client();
                KubernetesClient controllerClient = server.newClient()) {
            step("Embedded Kubernetes API at " + server.url());
            server.createCrds(Path.of("deploy", "crds"));
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
            String configYaml = "pools:\n- name: default\n  addresses: [\"10.5.0.200-10.5.0.220\"]\n";
            client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName("lbk8s-config")
                    .endMetadata().withData(Map.of("config.yaml", configYaml)).build()).create();
            System.out.println("  ConfigMap lbk8s-system/lbk8s-config:\n    " + configYaml.strip().replace("\n", "\n    "));

            var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            var controller = new Controller(controllerClient, new ControllerSettings(NS, Optional.empty()), registry);
            long t0 = System.nanoTime();
            controller.start();
            waitFor(() -> controller.readiness().ready(), 10_000);
            step("Controller ready in " + ms(t0) + " ms: " + controller.readiness().reason());

            step("kubectl apply: Service whoami, type LoadBalancer");
            long created = System.nanoTime();
            create(client, "whoami", b -> b);
            show(client, "whoami", "just created");
            String ip = awaitIp(client, "whoami");
            show(client, "whoami", "after " + ms(created) + " ms");

            step("A Service asking for a specific address (lbk8s.io/loadBalancerIPs: 10.5.0.210)");
            create(client, "pinned", b -> b.editMetadata().addToAnnotations("lbk8s.io/loadBalancerIPs", "10.5.0.210").endMetadata());
            awaitIp(client, "pinned");
            show(client, "pinned", "");

            step("A Service asking for an address that is taken (" + ip + ")");
            create(client, "greedy", b -> b.editMetadata().addToAnnotations("lbk8s.io/loadBalancerIPs", ip).endMetadata());
            String reason = awaitEvent(client, "greedy", "AllocationFailed");
            show(client, "greedy", "");
            System.out.println("  Event AllocationFailed: " + reason);

            step("Delete whoami: its address is free, and greedy gets it");
            client.services().inNamespace("default").withName("whoami").delete();
            awaitIp(client, "greedy");
            show(client, "greedy", "");

            step("Metrics (excerpt of /metrics)");
            registry.scrape().lines().filter(l -> l.startsWith("lbk8s_pool") || l.startsWith("lbk8s_config_valid"))
                    .forEach(l -> System.out.println("  " + l));
            controller.close();
            step("Done. The layer-2 part (ARP/NDP from network namespaces) comes with the speaker.");
        }
    }

    private static void create(KubernetesClient client, String name, UnaryOperator<ServiceBuilder> customize) {
        var builder = new ServiceBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withType("LoadBalancer").withSelector(Map.of("app", name))
                .addNewPort().withPort(80).withProtocol("TCP").endPort().endSpec();
        client.services().inNamespace("default").resource(customize.apply(builder).build()).create();
    }

    private static void show(KubernetesClient client, String name, String when) {
        Service s = client.services().inNamespace("default").withName(name).get();
        String external = s == null ? "(none)" : ServiceMapping.statusIps(s).stream().map(Object::toString)
                .reduce((a, b) -> a + "," + b).orElse("<pending>");
        String pool = s == null || s.getMetadata().getAnnotations() == null ? ""
                : s.getMetadata().getAnnotations().getOrDefault("metallb.io/ip-allocated-from-pool", "");
        System.out.printf("  %-8s %-13s %-15s %-8s %s%n", "NAME", "TYPE", "EXTERNAL-IP", "POOL", when.isEmpty() ? "" : "(" + when + ")");
        System.out.printf("  %-8s %-13s %-15s %-8s%n", name, "LoadBalancer", external, pool);
    }

    private static String awaitIp(KubernetesClient client, String name) throws InterruptedException {
        waitFor(() -> {
            Service s = client.services().inNamespace("default").withName(name).get();
            return s != null && !ServiceMapping.statusIps(s).isEmpty() && s.getMetadata().getAnnotations() != null
                    && s.getMetadata().getAnnotations().containsKey("metallb.io/ip-allocated-from-pool");
        }, 10_000);
        return ServiceMapping.statusIps(client.services().inNamespace("default").withName(name).get()).getFirst().toString();
    }

    private static String awaitEvent(KubernetesClient client, String name, String reason) throws InterruptedException {
        waitFor(() -> !events(client, name, reason).isEmpty(), 10_000);
        return events(client, name, reason).getFirst();
    }

    private static List<String> events(KubernetesClient client, String name, String reason) {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .map(e -> e.getMessage()).toList();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("timed out after " + timeoutMs + " ms");
            }
            Thread.sleep(10);
        }
    }

    private static long ms(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private static void step(String text) {
        System.out.println();
        System.out.println("==> " + text);
    }
}

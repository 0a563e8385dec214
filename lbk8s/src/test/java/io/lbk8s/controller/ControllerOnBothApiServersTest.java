package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.cluster.FreshApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The test API server stays where the real one cannot serve (the demo's default, fault injection); this holds it to
 * the real kube-apiserver: the same scenario, a controller with a pool and Services that get, ask for and cannot get
 * an address, runs on both, and both must end up holding the same statuses, claims and Events.
 */
class ControllerOnBothApiServersTest {

    private static final Path CRDS = Path.of("..", "deploy", "crds");

    /** What a cluster holds after the scenario, named without the run's namespaces. */
    record Held(Map<String, List<String>> ingress, TreeSet<String> claims, TreeSet<String> events) {}

    @Test
    void theTestApiServerEndsUpHoldingWhatKubeApiserverHolds() throws Exception {
        Held real;
        try (FreshApiServer kubeApiserver = FreshApiServer.startWithCrds(CRDS)) {
            real = scenario(kubeApiserver.client(), kubeApiserver.newClient());
        }
        Held imitated;
        try (TestApiServer testApiServer = TestApiServer.start()) {
            testApiServer.createCrds(CRDS);
            imitated = scenario(testApiServer.client(), testApiServer.newClient());
        }

        assertThat(imitated).isEqualTo(real);
        assertThat(real.ingress()).containsEntry("plain", List.of("198.51.100.10"));
    }

    /** Pools in a namespace of the run's own, Services in another; the controller runs until every verdict is in. */
    private static Held scenario(KubernetesClient client, KubernetesClient controllerClient)
            throws InterruptedException {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String config = "lbk8s-" + run;
        String apps = "apps-" + run;
        for (String namespace : List.of(config, apps)) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(namespace)
                            .endMetadata()
                            .build())
                    .create();
        }
        client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace(config)
                .resource(pool(config, "lan", List.of("198.51.100.10-198.51.100.12")))
                .create();
        client.services()
                .inNamespace(apps)
                .resource(service(apps, "plain", Map.of()))
                .create();
        client.services()
                .inNamespace(apps)
                .resource(service(apps, "asks", Map.of("metallb.io/loadBalancerIPs", "198.51.100.12")))
                .create();
        client.services()
                .inNamespace(apps)
                .resource(service(apps, "outside", Map.of("metallb.io/loadBalancerIPs", "203.0.113.7")))
                .create();

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Controller controller =
                new Controller(controllerClient, new ControllerSettings(config, Optional.empty()), registry);
        try {
            controller.start();
            controller.lead();
            await("both Services that can get an address have it, and the third is refused")
                    .atMost(Duration.ofSeconds(30))
                    .until(
                            () -> held(client, apps),
                            h -> h.ingress().size() == 2
                                    && h.events().stream().anyMatch(e -> e.startsWith("outside ")));
            Thread.sleep(2000); // what else the controller says of them arrives too
            return held(client, apps);
        } finally {
            controller.close();
        }
    }

    private static Held held(KubernetesClient client, String apps) {
        Map<String, List<String>> ingress = new TreeMap<>();
        for (Service service : client.services().inNamespace(apps).list().getItems()) {
            List<String> ips =
                    service.getStatus() == null || service.getStatus().getLoadBalancer() == null
                            ? List.of()
                            : service.getStatus().getLoadBalancer().getIngress().stream()
                                    .map(i -> i.getIp())
                                    .toList();
            if (!ips.isEmpty()) {
                ingress.put(service.getMetadata().getName(), ips);
            }
        }
        TreeSet<String> claims = new TreeSet<>();
        for (GenericKubernetesResource claim : client.genericKubernetesResources(IpAddressClaims.CONTEXT)
                .list()
                .getItems()) {
            String spec =
                    String.valueOf(canonical(claim.getAdditionalProperties().get("spec")));
            if (spec.contains(apps)) {
                claims.add(spec.replace(apps, "APPS"));
            }
        }
        TreeSet<String> events = new TreeSet<>();
        client.v1()
                .events()
                .inNamespace(apps)
                .list()
                .getItems()
                .forEach(e -> events.add(e.getInvolvedObject().getName() + " " + e.getType() + " " + e.getReason()
                        + ": " + e.getMessage().replace(apps, "APPS").replaceAll("lbk8s-[0-9a-f]{8}", "CONFIG")));
        return new Held(ingress, claims, events);
    }

    /** Maps with their keys sorted and without uids, which each server makes its own way. */
    private static Object canonical(Object value) {
        return switch (value) {
            case Map<?, ?> map -> {
                TreeMap<String, Object> sorted = new TreeMap<>();
                map.forEach((k, v) -> {
                    if (!"uid".equals(k)) {
                        sorted.put(String.valueOf(k), canonical(v));
                    }
                });
                yield sorted;
            }
            case List<?> list ->
                list.stream().map(ControllerOnBothApiServersTest::canonical).toList();
            case null -> "null";
            default -> value;
        };
    }

    private static GenericKubernetesResource pool(String namespace, String name, List<String> addresses) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("metallb.io/v1beta1")
                .withKind("IPAddressPool")
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("addresses", addresses)))
                .build();
    }

    private static Service service(String namespace, String name, Map<String, String> annotations) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build();
    }
}

package io.lbk8s.install;

import static io.lbk8s.install.HelmChartTest.CHART;
import static io.lbk8s.install.HelmChartTest.NS;
import static io.lbk8s.install.HelmChartTest.find;
import static io.lbk8s.install.HelmChartTest.key;
import static io.lbk8s.install.HelmChartTest.renderChart;
import static io.lbk8s.install.HelmChartTest.withoutLabels;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart's chart-only monitoring values (prometheus.*, grafana.*): off by default (HelmChartTest's equality with
 * {@link Manifests} covers that), and when on, objects that find lbk8s's Pods and carry the one rules file and
 * dashboard as they are; the Kustomize component deploy/prometheus renders the same PodMonitor and PrometheusRule.
 */
class HelmChartMonitoringTest {
    static final Path RULES = CHART.resolve("files/prometheus-rules.yaml");
    static final Path DASHBOARD = CHART.resolve("files/grafana-dashboard.json");
    static final Path COMPONENT = Path.of("..", "deploy", "prometheus");

    static final Map<String, Object> ALL_ON = Map.of(
            "prometheus",
            Map.of(
                    "serviceMonitor",
                    Map.of("enabled", true, "interval", "30s", "labels", Map.of("release", "kps")),
                    "podMonitor",
                    Map.of("enabled", true),
                    "rules",
                    Map.of("enabled", true, "labels", Map.of("release", "kps"))),
            "grafana",
            Map.of("dashboard", Map.of("enabled", true)));

    static final Set<String> MONITORING = Set.of(
            "Service " + NS + "/lbk8s-controller-monitoring",
            "Service " + NS + "/lbk8s-speaker-monitoring",
            "ServiceMonitor " + NS + "/lbk8s",
            "PodMonitor " + NS + "/lbk8s",
            "PrometheusRule " + NS + "/lbk8s",
            "ConfigMap " + NS + "/lbk8s-grafana-dashboard");

    @Test
    void turnedOnTheyAddTheirObjectsAndChangeNothingElse() {
        List<HasMetadata> objects = renderChart(ALL_ON);
        assertThat(objects.stream().map(HelmChartTest::key).filter(MONITORING::contains))
                .containsExactlyInAnyOrderElementsOf(MONITORING);
        HelmChartTest.assertSameObjects(
                objects.stream().filter(o -> !MONITORING.contains(key(o))).toList(),
                Manifests.render(HelmChartTest.defaultsEquivalent()).stream()
                        .filter(o -> !"Namespace".equals(o.getKind()))
                        .toList());
        // each turned on alone renders its own objects only
        assertThat(keys(renderChart(Map.of("prometheus", Map.of("podMonitor", Map.of("enabled", true))))))
                .containsExactly("PodMonitor " + NS + "/lbk8s");
        assertThat(keys(renderChart(Map.of("grafana", Map.of("dashboard", Map.of("enabled", true))))))
                .containsExactly("ConfigMap " + NS + "/lbk8s-grafana-dashboard");
    }

    static List<String> keys(List<HasMetadata> objects) {
        return objects.stream()
                .map(HelmChartTest::key)
                .filter(MONITORING::contains)
                .toList();
    }

    @Test
    @SuppressWarnings("unchecked")
    void theMonitorsFindTheControllerAndTheSpeakersByTheirMonitoringPort() {
        List<HasMetadata> objects = renderChart(ALL_ON);
        PodTemplateSpec controller =
                find(objects, Deployment.class, Manifests.CONTROLLER).getSpec().getTemplate();
        PodTemplateSpec speaker =
                find(objects, DaemonSet.class, Manifests.SPEAKER).getSpec().getTemplate();

        Map<String, Object> podMonitor =
                spec(findKind(objects, GenericKubernetesResource.class, "lbk8s", "PodMonitor"));
        Map<String, String> podSelector =
                (Map<String, String>) ((Map<String, Object>) podMonitor.get("selector")).get("matchLabels");
        List<Map<String, Object>> podEndpoints = (List<Map<String, Object>>) podMonitor.get("podMetricsEndpoints");
        for (PodTemplateSpec pod : List.of(controller, speaker)) {
            assertThat(pod.getMetadata().getLabels()).containsAllEntriesOf(podSelector);
            assertThat(ports(pod)).contains((String) podEndpoints.getFirst().get("port"));
        }
        assertThat(podEndpoints.getFirst()).containsEntry("path", "/metrics").containsEntry("honorLabels", true);

        GenericKubernetesResource serviceMonitor =
                findKind(objects, GenericKubernetesResource.class, "lbk8s", "ServiceMonitor");
        assertThat(serviceMonitor.getMetadata().getLabels()).containsEntry("release", "kps");
        Map<String, String> serviceSelector = (Map<String, String>)
                ((Map<String, Object>) spec(serviceMonitor).get("selector")).get("matchLabels");
        Map<String, Object> endpoint =
                ((List<Map<String, Object>>) spec(serviceMonitor).get("endpoints")).getFirst();
        assertThat(endpoint)
                .containsEntry("path", "/metrics")
                .containsEntry("honorLabels", true)
                .containsEntry("interval", "30s");
        Map<String, PodTemplateSpec> behind = Map.of(
                "lbk8s-controller-monitoring", controller,
                "lbk8s-speaker-monitoring", speaker);
        behind.forEach((name, pod) -> {
            Service service = find(objects, Service.class, name);
            assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(serviceSelector);
            assertThat(pod.getMetadata().getLabels())
                    .containsAllEntriesOf(service.getSpec().getSelector());
            assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
            var port = service.getSpec().getPorts().getFirst();
            assertThat(port.getName()).isEqualTo(endpoint.get("port"));
            assertThat(ports(pod)).contains(port.getTargetPort().getStrVal());
        });
        // the speaker's Pod alone must not match the controller's Service, nor the other way round
        assertThat(find(objects, Service.class, "lbk8s-controller-monitoring")
                        .getSpec()
                        .getSelector())
                .containsEntry("app.kubernetes.io/component", "controller");
    }

    @Test
    void theRuleAndTheDashboardAreTheFilesAsTheyAre() throws IOException {
        List<HasMetadata> objects = renderChart(ALL_ON);
        GenericKubernetesResource rule = findKind(objects, GenericKubernetesResource.class, "lbk8s", "PrometheusRule");
        assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kps");
        assertThat(spec(rule)).isEqualTo(yaml(Files.readString(RULES)));

        ConfigMap dashboard = find(objects, ConfigMap.class, "lbk8s-grafana-dashboard");
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(dashboard.getData().get("lbk8s.json"))
                .isEqualTo(Files.readString(DASHBOARD).stripTrailing());
    }

    @Test
    void theKustomizeComponentRendersWhatTheChartRenders() throws IOException {
        // a byte copy of the rules file under a PrometheusRule's spec: generated, so that the rules have one source
        String expected = prometheusRule(Files.readString(RULES));
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "prometheus-rule.yaml"), expected);
        try (Stream<Path> files = Files.list(COMPONENT)) {
            assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toSet()))
                    .containsExactlyInAnyOrder("kustomization.yaml", "pod-monitor.yaml", "prometheus-rule.yaml");
        }
        Map<String, Object> kustomization = yaml(Files.readString(COMPONENT.resolve("kustomization.yaml")));
        assertThat(kustomization).containsEntry("kind", "Component");
        assertThat(kustomization.get("resources")).isEqualTo(List.of("pod-monitor.yaml", "prometheus-rule.yaml"));

        List<HasMetadata> chart = renderChart(ALL_ON);
        HasMetadata podMonitor =
                ManifestOutput.SERIALIZATION.unmarshal(Files.readString(COMPONENT.resolve("pod-monitor.yaml")));
        assertThat(withoutLabels(podMonitor))
                .isEqualTo(withoutLabels(findKind(chart, GenericKubernetesResource.class, "lbk8s", "PodMonitor")));

        assertThat(Files.readString(COMPONENT.resolve("prometheus-rule.yaml")))
                .as("deploy/prometheus/prometheus-rule.yaml is stale: copy lbk8s/target/prometheus-rule.yaml there")
                .isEqualTo(expected);
        HasMetadata rule = ManifestOutput.SERIALIZATION.unmarshal(expected);
        assertThat(withoutLabels(rule))
                .isEqualTo(withoutLabels(findKind(chart, GenericKubernetesResource.class, "lbk8s", "PrometheusRule")));
    }

    /** deploy/prometheus/prometheus-rule.yaml as it must be: the rules file, indented under spec. */
    static String prometheusRule(String rules) {
        return """
                # Generated from charts/lbk8s/files/prometheus-rules.yaml, indented under spec (do not edit:
                # HelmChartMonitoringTest checks it, and writes lbk8s/target/prometheus-rule.yaml to copy here).
                apiVersion: monitoring.coreos.com/v1
                kind: PrometheusRule
                metadata:
                  name: lbk8s
                  namespace: lbk8s-system
                  labels:
                    app.kubernetes.io/name: lbk8s
                spec:
                """ + rules.lines().map(l -> l.isEmpty() ? "" : "  " + l).collect(Collectors.joining("\n", "", "\n"));
    }

    static <T extends HasMetadata> T findKind(List<HasMetadata> objects, Class<T> type, String name, String kind) {
        return objects.stream()
                .filter(o -> o.getKind().equals(kind))
                .map(type::cast)
                .filter(o -> o.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> spec(GenericKubernetesResource o) {
        return (Map<String, Object>) o.getAdditionalProperties().get("spec");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(String text) {
        return HelmTemplate.YAML.readValue(text, LinkedHashMap.class);
    }

    static List<String> ports(PodTemplateSpec pod) {
        Container c = pod.getSpec().getContainers().getFirst();
        return c.getPorts().stream().map(ContainerPort::getName).toList();
    }
}

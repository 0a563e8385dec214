package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.lbk8s.version.BuildVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Helm chart {@code charts/lbk8s} renders what {@link Manifests} renders.
 *
 * <p>Why structural: there is no helm binary on the build machines (no package registry we may use ships one), so this
 * test does not run {@code helm template} or {@code helm lint}. Instead {@link HelmTemplate} renders the small subset
 * of Go templates the chart is written in (the chart is kept within it on purpose), the output is parsed with
 * fabric8 into typed objects, and those are compared with {@link Manifests#render} for the equivalent
 * {@link InstallValues}: every object of the same kind and name, and equal in everything but its labels (RBAC rules,
 * container args, ports, env, probes, securityContext and capabilities, tolerations, volumes, selectors...); the
 * labels must include lbk8s's own, with Helm as the manager. {@code values.yaml} is checked against
 * {@code values.schema.json} by a small walker (types, enums, patterns, ranges, no value without a schema entry and
 * no schema entry without a value), not by a full JSON Schema validator. What this cannot catch: Go-template
 * behaviour outside the subset (the renderer refuses it), Helm's own install ordering and hooks, and lint rules.
 */
class HelmChartTest {
    static final Path CHART = Path.of("..", "charts", "lbk8s");
    static final Path DEPLOY_CRDS = Path.of("..", "deploy", "crds");
    static final String NS = InstallValues.DEFAULT_NAMESPACE;
    static final HelmTemplate.Chart chart = HelmTemplate.Chart.load(CHART);
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** The chart's default image: the appVersion tag. */
    static final String CHART_IMAGE = InstallValues.IMAGE_REPOSITORY + ":0.1.0";

    /** What `lbk8s install` renders for the chart's defaults: no pool (addresses: []), the chart's image tag. */
    static InstallValues defaultsEquivalent() {
        return InstallValues.defaults().withAddresses(List.of()).withImage(CHART_IMAGE);
    }

    static final Map<String, Object> CUSTOM = Map.of(
            "addresses", List.of("192.0.2.10-192.0.2.20", "2001:db8::10-2001:db8::20"),
            "poolName", "lan",
            "loadBalancerClass", "example.com/l2",
            "ignoreExcludeLB", true,
            "image", Map.of("repository", "registry.example/lbk8s", "tag", "dev", "pullPolicy", "Always"),
            "metrics", Map.of("port", 7473),
            "bgp",
                    Map.of(
                            "peers",
                            List.of(
                                    Map.of("name", "router", "address", "192.0.2.1", "asn", 64501),
                                    Map.of(
                                            "name",
                                            "v6",
                                            "address",
                                            "2001:db8::1",
                                            "asn",
                                            4200000000L,
                                            "myASN",
                                            64500))),
            "controller", Map.of("replicas", 3, "resources", resources("100m", "128Mi", "512Mi")),
            "speaker",
                    Map.of(
                            "netAdmin",
                            true,
                            "arpInKernel",
                            true,
                            "peerPort",
                            7950,
                            "bgpListenPort",
                            0,
                            "resources",
                            resources("20m", "64Mi", "128Mi")));

    static final InstallValues CUSTOM_EQUIVALENT = new InstallValues(
            NS,
            "registry.example/lbk8s:dev",
            "Always",
            List.of("192.0.2.10-192.0.2.20", "2001:db8::10-2001:db8::20"),
            "lan",
            Optional.of("example.com/l2"),
            true,
            true,
            true,
            7473,
            7950,
            0,
            3,
            new InstallValues.Resources("100m", "128Mi", "512Mi"),
            new InstallValues.Resources("20m", "64Mi", "128Mi"),
            BgpPeerOption.parseAll(
                    List.of("192.0.2.1,asn=64501,name=router", "2001:db8::1,asn=4200000000,my-asn=64500,name=v6")));

    static Map<String, Object> resources(String cpu, String memory, String memoryLimit) {
        return Map.of("requests", Map.of("cpu", cpu, "memory", memory), "limits", Map.of("memory", memoryLimit));
    }

    static List<HasMetadata> renderChart(Map<String, Object> overrides) {
        return renderChart(overrides, HelmTemplate.Lookup.NOTHING);
    }

    /** @param cluster what Helm's lookup finds (nothing, as with helm template, or a cluster's objects on an upgrade) */
    static List<HasMetadata> renderChart(Map<String, Object> overrides, HelmTemplate.Lookup cluster) {
        String text = chart.manifests("lbk8s", NS, overrides, cluster);
        List<HasMetadata> objects = new ArrayList<>();
        for (String doc : text.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("#"))) {
                continue;
            }
            objects.add(ManifestOutput.SERIALIZATION.unmarshal(doc));
        }
        return objects;
    }

    static String key(HasMetadata o) {
        return o.getKind() + " "
                + (o.getMetadata().getNamespace() == null ? "" : o.getMetadata().getNamespace() + "/")
                + o.getMetadata().getName();
    }

    /** The object as plain sorted maps and lists, without its labels (those are compared on their own). */
    @SuppressWarnings("unchecked")
    static Object withoutLabels(HasMetadata o) {
        Map<String, Object> tree = JSON.readValue(ManifestOutput.SERIALIZATION.asJson(o), LinkedHashMap.class);
        ((Map<String, Object>) tree.get("metadata")).remove("labels");
        return sorted(tree);
    }

    static Object sorted(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new TreeMap<>();
            m.forEach((k, v) -> out.put(k.toString(), sorted(v)));
            return out;
        }
        if (o instanceof List<?> l) {
            return l.stream().map(HelmChartTest::sorted).toList();
        }
        return o;
    }

    /** The {@code keys} of the chart's key Secret, decoded. */
    static String keysOf(List<HasMetadata> fromChart) {
        String data =
                find(fromChart, Secret.class, Manifests.PEER_SECRET).getData().get(Manifests.PEER_KEYS);
        return new String(Base64.getDecoder().decode(data), StandardCharsets.UTF_8);
    }

    /**
     * Same kinds and names, each object equal but for labels, and the chart's labels include lbk8s's own. The one
     * object that cannot be equal: the speakers' key Secret, which {@link Manifests#render} leaves out (install
     * creates it with a random key) and which the chart renders with a random key of its own (lookup finds no
     * cluster here). That key must have the form install's keys have; then the chart's Secret is compared with
     * {@link Manifests#peerSecret} holding it.
     */
    static void assertSameObjects(List<HasMetadata> fromChart, List<HasMetadata> fromManifests) {
        String keys = keysOf(fromChart);
        assertThat(keys)
                .as("the chart's new key: 64 hex characters and a newline, as install's")
                .matches("[0-9a-f]{64}\n");
        List<HasMetadata> expected = new ArrayList<>(fromManifests.stream()
                .filter(o -> !(o instanceof CustomResourceDefinition))
                .toList());
        assertThat(expected).noneMatch(o -> o instanceof Secret);
        expected.add(Manifests.peerSecret(NS, keys));
        Map<String, HasMetadata> byKey = new LinkedHashMap<>();
        fromChart.forEach(o ->
                assertThat(byKey.put(key(o), o)).as("rendered twice: " + key(o)).isNull());
        assertThat(byKey.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        expected.stream().map(HelmChartTest::key).toList());
        for (HasMetadata want : expected) {
            HasMetadata got = byKey.get(key(want));
            assertThat(got.getClass()).as(key(want)).isEqualTo(want.getClass());
            assertThat(withoutLabels(got))
                    .as(key(want))
                    .hasToString(withoutLabels(want).toString())
                    .isEqualTo(withoutLabels(want));
            Map<String, String> labels = new LinkedHashMap<>(want.getMetadata().getLabels());
            labels.remove(Manifests.MANAGED_BY_LABEL);
            assertThat(got.getMetadata().getLabels())
                    .as(key(want) + " labels")
                    .containsAllEntriesOf(labels)
                    .containsEntry(Manifests.MANAGED_BY_LABEL, "Helm")
                    .containsEntry("app.kubernetes.io/instance", "lbk8s");
        }
    }

    @Test
    void defaultValuesRenderWhatInstallRendersWithoutAPool() throws IOException {
        // for a person to read: what `helm template lbk8s charts/lbk8s -n lbk8s-system` would print, per this renderer
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "helm-template-defaults.yaml"), chart.manifests("lbk8s", NS, Map.of()));
        Files.writeString(Path.of("target", "helm-template-custom.yaml"), chart.manifests("lbk8s", NS, CUSTOM));
        List<HasMetadata> objects = renderChart(Map.of());
        List<HasMetadata> expected = Manifests.render(defaultsEquivalent()).stream()
                .filter(o -> !"Namespace".equals(o.getKind()))
                .toList(); // namespace.create is false by default
        assertSameObjects(objects, expected);
        assertThat(objects)
                .noneMatch(
                        o -> o.getKind().equals("IPAddressPool") || o.getKind().equals("Namespace"));
        // a leader and a standby, evicted one at a time (also covered by the equality above)
        assertThat(find(objects, Deployment.class, Manifests.CONTROLLER)
                        .getSpec()
                        .getReplicas())
                .isEqualTo(2);
        assertThat(find(objects, PodDisruptionBudget.class, Manifests.CONTROLLER)
                        .getSpec()
                        .getMaxUnavailable()
                        .getIntVal())
                .isEqualTo(1);
    }

    @Test
    void namespaceCreateRendersThePrivilegedNamespace() {
        List<HasMetadata> objects = renderChart(Map.of("namespace", Map.of("create", true)));
        assertSameObjects(objects, Manifests.render(defaultsEquivalent()));
        assertThat(objects.stream()
                        .filter(o -> o.getKind().equals("Namespace"))
                        .findFirst()
                        .orElseThrow()
                        .getMetadata()
                        .getLabels())
                .containsEntry("pod-security.kubernetes.io/enforce", "privileged")
                .containsEntry("pod-security.kubernetes.io/audit", "privileged")
                .containsEntry("pod-security.kubernetes.io/warn", "privileged");
    }

    @Test
    void customValuesRenderWhatInstallRendersWithTheSameFlags() {
        List<HasMetadata> objects = renderChart(CUSTOM);
        assertSameObjects(
                objects,
                Manifests.render(CUSTOM_EQUIVALENT).stream()
                        .filter(o -> !"Namespace".equals(o.getKind()))
                        .toList());

        // the points that matter most, spelled out (also covered by the equality above)
        DaemonSet speaker = find(objects, DaemonSet.class, Manifests.SPEAKER);
        Container c = speaker.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getArgs())
                .containsExactly(
                        "speaker",
                        "--metrics-port=7473",
                        "--lb-class=example.com/l2",
                        "--ignore-exclude-lb",
                        "--peer-port=7950",
                        "--bgp-listen-port=0");
        assertThat(c.getSecurityContext().getCapabilities().getAdd())
                .containsExactly("NET_RAW", "SYS_NICE", "NET_BIND_SERVICE", "NET_ADMIN", "BPF");
        assertThat(c.getPorts())
                .extracting(p -> p.getName() + " " + p.getContainerPort() + "/" + p.getProtocol())
                .containsExactly("monitoring 7473/TCP", "peers 7950/UDP");
        assertThat(c.getImage()).isEqualTo("registry.example/lbk8s:dev");
        assertThat(c.getPorts().getFirst().getHostPort()).isEqualTo(7473);
        Deployment controller = find(objects, Deployment.class, Manifests.CONTROLLER);
        assertThat(controller
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getArgs())
                .containsExactly("controller", "--metrics-port=7473", "--lb-class=example.com/l2");
        assertThat(controller.getSpec().getReplicas()).isEqualTo(3);
        var pool = objects.stream()
                .filter(o -> o.getKind().equals("IPAddressPool"))
                .findFirst()
                .orElseThrow();
        assertThat(pool.getMetadata().getName()).isEqualTo("lan");
    }

    @Test
    void peerPortZeroTurnsTheFailureDetectorOffAsInstallDoes() {
        List<HasMetadata> objects = renderChart(Map.of("speaker", Map.of("peerPort", 0)));
        assertSameObjects(
                objects,
                Manifests.render(defaultsEquivalent().withPeerPort(0)).stream()
                        .filter(o -> !"Namespace".equals(o.getKind()))
                        .toList());
        Container c = find(objects, DaemonSet.class, Manifests.SPEAKER)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
        assertThat(c.getArgs()).contains("--peer-port=0");
        assertThat(c.getPorts()).extracting(p -> p.getName()).containsExactly("monitoring");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theKeySecretGetsANewKeyOnInstallAndKeepsItsKeysOnUpgrade() {
        // helm install, helm template: nothing to look up, a new random key every time
        String first = keysOf(renderChart(Map.of()));
        assertThat(first).matches("[0-9a-f]{64}\n");
        assertThat(keysOf(renderChart(Map.of()))).matches("[0-9a-f]{64}\n").isNotEqualTo(first);

        // helm upgrade: lookup finds the Secret in the cluster, and its keys stay exactly as they are (two,
        // mid-rotation)
        String rotating = "0123456789abcdef".repeat(4) + "\n" + "a-key-of-forty-characters-that-was-added" + "\n";
        Map<String, Object> live = JSON.readValue(
                ManifestOutput.SERIALIZATION.asJson(Manifests.peerSecret(NS, rotating)), LinkedHashMap.class);
        ((Map<String, Object>) live.get("metadata")).put("resourceVersion", "42");
        List<String> looked = new ArrayList<>();
        List<HasMetadata> upgraded = renderChart(Map.of(), (apiVersion, kind, namespace, name) -> {
            looked.add(String.join(" ", apiVersion, kind, namespace, name));
            return kind.equals("Secret") && namespace.equals(NS) && name.equals(Manifests.PEER_SECRET)
                    ? live
                    : Map.of();
        });
        assertThat(looked).containsExactly("v1 Secret " + NS + " " + Manifests.PEER_SECRET);
        assertThat(keysOf(upgraded)).isEqualTo(rotating);
        assertThat(withoutLabels(find(upgraded, Secret.class, Manifests.PEER_SECRET)))
                .isEqualTo(withoutLabels(Manifests.peerSecret(NS, rotating)));
    }

    @Test
    void rbacRulesAreRbacs() {
        List<HasMetadata> objects = renderChart(Map.of());
        assertThat(find(objects, ClusterRole.class, Manifests.CONTROLLER).getRules())
                .isEqualTo(Rbac.policyRules(Rbac.CONTROLLER_CLUSTER));
        assertThat(find(objects, ClusterRole.class, Manifests.SPEAKER).getRules())
                .isEqualTo(Rbac.policyRules(Rbac.SPEAKER_CLUSTER));
        assertThat(find(objects, Role.class, Manifests.CONTROLLER).getRules())
                .isEqualTo(Rbac.policyRules(Rbac.CONTROLLER_NAMESPACE));
        assertThat(find(objects, Role.class, Manifests.SPEAKER).getRules())
                .isEqualTo(Rbac.policyRules(Rbac.SPEAKER_NAMESPACE));
    }

    @Test
    void chartOnlyValuesLogFormatNodeSelectorsAndTolerations() {
        Map<String, Object> noOs = new java.util.HashMap<>();
        noOs.put(
                "kubernetes.io/os", null); // as in Helm, a null removes a default key; an empty map would merge into it
        List<HasMetadata> objects = renderChart(Map.of(
                "logFormat", "json",
                "controller", Map.of("nodeSelector", noOs),
                "speaker",
                        Map.of(
                                "nodeSelector",
                                Map.of("kubernetes.io/os", "linux", "lbk8s.io/speaker", "true"),
                                "tolerations",
                                List.of(Map.of("operator", "Exists")))));
        for (String name : List.of(Manifests.CONTROLLER, Manifests.SPEAKER)) {
            var pod = name.equals(Manifests.CONTROLLER)
                    ? find(objects, Deployment.class, name)
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                    : find(objects, DaemonSet.class, name)
                            .getSpec()
                            .getTemplate()
                            .getSpec();
            assertThat(pod.getContainers().getFirst().getEnv())
                    .extracting(EnvVar::getName)
                    .endsWith("LOG_FORMAT");
            assertThat(pod.getContainers().getFirst().getEnv().getLast().getValue())
                    .isEqualTo("json");
        }
        var controllerPod = find(objects, Deployment.class, Manifests.CONTROLLER)
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(controllerPod.getNodeSelector()).isNullOrEmpty();
        var speakerPod = find(objects, DaemonSet.class, Manifests.SPEAKER)
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(speakerPod.getNodeSelector())
                .containsEntry("lbk8s.io/speaker", "true")
                .hasSize(2);
        assertThat(speakerPod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getKey()).isNull();
        });
        // an empty map merges with the default (Helm's coalescing), it does not clear it
        var merged = find(
                renderChart(Map.of("controller", Map.of("nodeSelector", Map.of()))),
                Deployment.class,
                Manifests.CONTROLLER);
        assertThat(merged.getSpec().getTemplate().getSpec().getNodeSelector()).containsOnlyKeys("kubernetes.io/os");
        // an empty list replaces the default list: no tolerations at all
        var none = find(
                renderChart(Map.of("speaker", Map.of("tolerations", List.of()))), DaemonSet.class, Manifests.SPEAKER);
        assertThat(none.getSpec().getTemplate().getSpec().getTolerations()).isNullOrEmpty();
    }

    @Test
    void crdsAreCopiesOfDeployCrdsAndWhatInstallApplies() throws IOException {
        List<String> files;
        try (Stream<Path> list = Files.list(CHART.resolve("crds"))) {
            files = list.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(files).containsExactlyInAnyOrderElementsOf(Crds.FILES);
        for (String file : Crds.FILES) {
            assertThat(Files.readString(CHART.resolve("crds").resolve(file)))
                    .as("charts/lbk8s/crds/" + file + " is stale: copy deploy/crds/" + file)
                    .isEqualTo(Files.readString(DEPLOY_CRDS.resolve(file)));
        }
        // Helm applies crds/ as they are (no templating, so no labels); otherwise the same objects install applies
        List<HasMetadata> fromChart = new ArrayList<>();
        for (String file : Crds.FILES) {
            fromChart.add(ManifestOutput.SERIALIZATION.unmarshal(
                    Files.readString(CHART.resolve("crds").resolve(file))));
        }
        List<HasMetadata> fromManifests = Manifests.render(defaultsEquivalent()).stream()
                .filter(o -> o instanceof CustomResourceDefinition)
                .toList();
        assertThat(fromChart.stream().map(HelmChartTest::withoutLabels).toList())
                .isEqualTo(
                        fromManifests.stream().map(HelmChartTest::withoutLabels).toList());
    }

    @Test
    void chartYamlVersionIsTheAppVersion() {
        assertThat(chart.chart())
                .containsEntry("apiVersion", "v2")
                .containsEntry("name", "lbk8s")
                .containsEntry("version", "0.1.0")
                .containsEntry("appVersion", "0.1.0");
        // the app's own version, less any -SNAPSHOT
        assertThat(BuildVersion.read().orElseThrow().replace("-SNAPSHOT", ""))
                .isEqualTo(chart.chart().get("appVersion"));
    }

    @Test
    void notesTellHowToCheck() {
        String defaults = chart.render("lbk8s", NS, Map.of()).get("NOTES.txt");
        assertThat(defaults)
                .contains(
                        "kubectl get svc -A",
                        "kubectl get servicel2statuses -n " + NS,
                        "node.kubernetes.io/exclude-from-external-load-balancers",
                        "ignoreExcludeLB=true",
                        "kubectl label namespace " + NS + " pod-security.kubernetes.io/enforce=privileged",
                        "No address pool was rendered");
        String custom = chart.render(
                        "lbk8s",
                        NS,
                        Map.of(
                                "addresses",
                                List.of("192.0.2.10-192.0.2.20"),
                                "ignoreExcludeLB",
                                true,
                                "namespace",
                                Map.of("create", true)))
                .get("NOTES.txt");
        assertThat(custom)
                .contains("pool default (192.0.2.10-192.0.2.20)", "announce too (ignoreExcludeLB)")
                .doesNotContain("No address pool", "kubectl label namespace");
    }

    // ---- values.yaml against values.schema.json ----

    @Test
    @SuppressWarnings("unchecked")
    void valuesYamlMatchesItsSchemaBothWays() throws IOException {
        Map<String, Object> schema =
                JSON.readValue(Files.readString(CHART.resolve("values.schema.json")), LinkedHashMap.class);
        assertThat(schema).containsEntry("$schema", "http://json-schema.org/draft-07/schema#");
        List<String> problems = new ArrayList<>();
        new SchemaWalk(schema, problems).check("", chart.defaults(), schema, true);
        assertThat(problems).as("values.yaml against values.schema.json").isEmpty();

        // the custom values of the tests conform too
        new SchemaWalk(schema, problems).check("", HelmTemplate.merge(chart.defaults(), CUSTOM), schema, true);
        assertThat(problems).isEmpty();

        // and the walk does find what is wrong
        Map<String, Object> wrong = HelmTemplate.merge(
                chart.defaults(),
                Map.of(
                        "image",
                        Map.of("pullPolicy", "Sometimes"),
                        "metrics",
                        Map.of("port", "7472"),
                        "speaker",
                        Map.of("netAdmni", true)));
        new SchemaWalk(schema, problems).check("", wrong, schema, true);
        assertThat(problems)
                .containsExactlyInAnyOrder(
                        ".image.pullPolicy: Sometimes is not one of [Always, IfNotPresent, Never]",
                        ".metrics.port: 7472 is a String, the schema says [integer]",
                        ".speaker.netAdmni: not in the schema");
    }

    @Test
    void theRendererRefusesWhatItDoesNotSupport() {
        Map<String, List<HelmTemplate.Node>> defines = new LinkedHashMap<>();
        assertThatThrownBy(() -> HelmTemplate.parse("{{ with .Values.x }}{{ end }}", defines))
                .hasMessageContaining("subset");
        var nodes = HelmTemplate.parse("{{ .Values.tpyo }}", defines);
        var broken = new HelmTemplate.Chart(CHART, chart.chart(), chart.defaults(), defines, Map.of("x.yaml", nodes));
        assertThatThrownBy(() -> broken.render("r", NS, Map.of())).hasMessageContaining("no value .Values.tpyo");
        assertThatThrownBy(() -> renderOne("{{ upper .Values.poolName }}"))
                .hasMessageContaining("upper is not in the supported subset");
        assertThatThrownBy(() -> renderOne("{{ printf \"%d\" 1 }}")).hasMessageContaining("%s verbs only");
        assertThatThrownBy(() -> renderOne("{{ if true }}{{ $a := 1 }}{{ end }}{{ $a }}"))
                .hasMessageContaining("undefined variable $a");
        assertThatThrownBy(() -> HelmTemplate.parse("{{ range $i, $e := .Values.addresses }}{{ end }}", defines))
                .hasMessageContaining("subset");
        assertThatThrownBy(() -> renderOne("{{ \"\\t\" }}")).hasMessageContaining("escape");
    }

    static String renderOne(String template) {
        Map<String, List<HelmTemplate.Node>> defines = new LinkedHashMap<>();
        var nodes = HelmTemplate.parse(template, defines);
        return new HelmTemplate.Chart(CHART, chart.chart(), chart.defaults(), defines, Map.of("x.yaml", nodes))
                .render("r", NS, Map.of())
                .get("x.yaml");
    }

    @Test
    void theRendererDoesWhatHelmDoesForTheKeySecret() {
        // variables: in scope to the end of their block, as in Go
        assertThat(renderOne("{{ $a := \"top\" }}{{ if true }}{{ $a := \"inner\" }}{{ $a }}{{ end }}-{{ $a }}"))
                .isEqualTo("inner-top");
        assertThat(renderOne("{{- $b := .Values.poolName | quote }}{{ $b }}")).isEqualTo("\"default\"");
        // sprig's functions, as Go computes them
        assertThat(renderOne("{{ sha256sum \"abc\" }}"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(renderOne("{{ \"hi\" | printf \"%s\\n\" | b64enc }}")).isEqualTo("aGkK");
        assertThat(Base64.getDecoder().decode(renderOne("{{ randBytes 32 }}"))).hasSize(32);
        assertThat(renderOne("{{ randBytes 32 | sha256sum }}"))
                .matches("[0-9a-f]{64}")
                .isNotEqualTo(renderOne("{{ randBytes 32 | sha256sum }}"));
        // lookup without a cluster finds an empty map, and dig then gives its default
        assertThat(renderOne("{{ lookup \"v1\" \"Secret\" \"ns\" \"x\" | dig \"data\" \"keys\" \"none\" }}"))
                .isEqualTo("none");
        assertThat(renderOne("{{ .Values | dig \"image\" \"pullPolicy\" \"none\" }}"))
                .isEqualTo("IfNotPresent");
    }

    static <T extends HasMetadata> T find(List<HasMetadata> objects, Class<T> type, String name) {
        return objects.stream()
                .filter(type::isInstance)
                .map(type::cast)
                .filter(o -> o.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }

    /**
     * A structural JSON Schema walk over the keywords values.schema.json uses: type (one or a list), enum, pattern,
     * minLength, maxLength, minimum, maximum, properties, additionalProperties (false or a schema), items, and local
     * $ref. {@code complete}: every property the schema names must be present (true for values.yaml's maps, false
     * inside array items, whose properties are optional).
     */
    record SchemaWalk(Map<String, Object> root, List<String> problems) {
        @SuppressWarnings("unchecked")
        void check(String path, Object value, Map<String, Object> schema, boolean complete) {
            schema = resolve(schema);
            List<String> types =
                    schema.get("type") instanceof List<?> l ? (List<String>) l : List.of((String) schema.get("type"));
            if (types.stream().noneMatch(t -> is(t, value))) {
                problems.add(path + ": " + value + " is a "
                        + (value == null ? "null" : value.getClass().getSimpleName()) + ", the schema says " + types);
                return;
            }
            if (schema.get("enum") instanceof List<?> values && !values.contains(value)) {
                problems.add(path + ": " + value + " is not one of " + values);
            }
            if (value instanceof String s) {
                if (schema.get("pattern") instanceof String p
                        && !Pattern.compile(p).matcher(s).find()) {
                    problems.add(path + ": " + s + " does not match " + p);
                }
                if (schema.get("minLength") instanceof Number n && s.length() < n.intValue()) {
                    problems.add(path + ": shorter than " + n);
                }
                if (schema.get("maxLength") instanceof Number n && s.length() > n.intValue()) {
                    problems.add(path + ": longer than " + n);
                }
            }
            if (value instanceof Number n) {
                if (schema.get("minimum") instanceof Number min && n.doubleValue() < min.doubleValue()) {
                    problems.add(path + ": below " + min);
                }
                if (schema.get("maximum") instanceof Number max && n.doubleValue() > max.doubleValue()) {
                    problems.add(path + ": above " + max);
                }
                if (schema.get("pattern") instanceof String p
                        && !Pattern.compile(p).matcher(n.toString()).find()) {
                    problems.add(path + ": " + n + " does not match " + p);
                }
            }
            if (value instanceof Map<?, ?> map) {
                Map<String, Object> properties = (Map<String, Object>) schema.getOrDefault("properties", Map.of());
                Object additional = schema.get("additionalProperties");
                map.forEach((k, v) -> {
                    if (properties.get(k) instanceof Map<?, ?> p) {
                        check(path + "." + k, v, (Map<String, Object>) p, complete);
                    } else if (additional instanceof Map<?, ?> a) {
                        check(path + "." + k, v, (Map<String, Object>) a, complete);
                    } else {
                        problems.add(path + "." + k + ": not in the schema");
                    }
                });
                if (complete) {
                    properties.keySet().stream()
                            .filter(k -> !map.containsKey(k))
                            .forEach(k -> problems.add(path + "." + k + ": in the schema, not in values.yaml"));
                }
            }
            if (value instanceof List<?> list) {
                Map<String, Object> items = (Map<String, Object>) schema.get("items");
                if (items == null) {
                    problems.add(path + ": an array without an items schema");
                } else {
                    for (int i = 0; i < list.size(); i++) {
                        check(path + "[" + i + "]", list.get(i), items, false);
                    }
                }
            }
        }

        @SuppressWarnings("unchecked")
        private Map<String, Object> resolve(Map<String, Object> schema) {
            while (schema.get("$ref") instanceof String ref) {
                if (!ref.startsWith("#/")) {
                    throw new IllegalArgumentException("only local $refs: " + ref);
                }
                Map<String, Object> target = root;
                for (String part : ref.substring(2).split("/")) {
                    target = (Map<String, Object>) target.get(part);
                }
                schema = target;
            }
            return schema;
        }

        private static boolean is(String type, Object value) {
            return switch (type) {
                case "object" -> value instanceof Map;
                case "array" -> value instanceof List;
                case "string" -> value instanceof String;
                case "boolean" -> value instanceof Boolean;
                case "integer" -> value instanceof Integer || value instanceof Long;
                case "number" -> value instanceof Number;
                case "null" -> value == null;
                default -> throw new IllegalArgumentException("unknown type " + type);
            };
        }
    }
}

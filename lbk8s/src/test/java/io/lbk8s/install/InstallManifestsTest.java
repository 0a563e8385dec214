package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.lbk8s.config.ConfigParser;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.ConfigResources;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The generated files are the renderer's output, and every rendered object is a well-formed Kubernetes object. */
class InstallManifestsTest {
    static final Path DEPLOY = Path.of("..", "deploy");

    static String withoutLeadingComments(String text) {
        return text.lines().dropWhile(l -> l.startsWith("#")).collect(Collectors.joining("\n", "", "\n"));
    }

    @Test
    void deployLbk8sYamlIsTheDefaultDryRun() throws IOException {
        String expected = ManifestOutput.write(Manifests.render(InstallValues.defaults()), ManifestOutput.Format.yaml);
        assertThat(withoutLeadingComments(Files.readString(DEPLOY.resolve("lbk8s.yaml"))))
                .as("deploy/lbk8s.yaml is stale: regenerate it with the command in its first line")
                .isEqualTo(expected);
        assertThat(Files.readString(DEPLOY.resolve("lbk8s.yaml")))
                .startsWith("# Generated: lbk8s install --dry-run -o yaml");
    }

    @Test
    void deployExampleYamlIsThePrintedExample() throws IOException {
        String expected = ManifestOutput.write(Manifests.example(), ManifestOutput.Format.yaml);
        assertThat(withoutLeadingComments(Files.readString(DEPLOY.resolve("example.yaml"))))
                .isEqualTo(expected);
    }

    @Test
    void embeddedCrdsAreCopiesOfDeployCrds() throws IOException {
        try (var files = Files.list(DEPLOY.resolve("crds"))) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
                    .containsExactlyInAnyOrderElementsOf(Crds.FILES);
        }
        for (String file : Crds.FILES) {
            try (InputStream in = Crds.class.getResourceAsStream("/install/crds/" + file)) {
                assertThat(new String(in.readAllBytes()))
                        .as(file + ": copy deploy/crds/" + file + " to lbk8s/src/main/resources/install/crds/")
                        .isEqualTo(Files.readString(DEPLOY.resolve("crds").resolve(file)));
            }
        }
    }

    @Test
    void everyObjectParsesBackIntoItsTypedKindWithRequiredFields() {
        for (var format : ManifestOutput.Format.values()) {
            String text = ManifestOutput.write(Manifests.render(InstallValues.defaults()), format);
            List<HasMetadata> parsed = format == ManifestOutput.Format.json
                    ? ManifestOutput.SERIALIZATION
                            .unmarshal(text, KubernetesList.class)
                            .getItems()
                    : ManifestOutput.SERIALIZATION.unmarshal(text);
            assertThat(parsed)
                    .hasSize(Manifests.render(InstallValues.defaults()).size());
            for (HasMetadata object : parsed) {
                assertThat(object.getApiVersion()).isNotBlank();
                assertThat(object.getMetadata().getName()).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
                assertThat(object.getMetadata().getLabels())
                        .containsEntry(Manifests.MANAGED_BY_LABEL, Manifests.MANAGED_BY);
                switch (object) {
                    case Namespace ns ->
                        assertThat(ns.getMetadata().getLabels())
                                .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
                    case CustomResourceDefinition crd ->
                        assertThat(crd.getSpec().getGroup()).isIn("metallb.io", "lbk8s.io");
                    case ClusterRole r -> assertThat(r.getRules()).isNotEmpty();
                    case Role r -> assertThat(r.getRules()).isNotEmpty();
                    case ClusterRoleBinding b ->
                        assertThat(b.getSubjects().getFirst().getNamespace()).isEqualTo("lbk8s-system");
                    case RoleBinding b ->
                        assertThat(b.getRoleRef().getName())
                                .isEqualTo(b.getMetadata().getName());
                    case Deployment d ->
                        assertControllerPod(d.getSpec().getTemplate().getSpec());
                    case PodDisruptionBudget pdb ->
                        assertThat(pdb.getSpec().getSelector().getMatchLabels())
                                .isEqualTo(Manifests.podLabels("controller"));
                    case DaemonSet ds ->
                        assertSpeakerPod(
                                ds.getSpec().getTemplate().getSpec(),
                                ds.getSpec().getTemplate().getMetadata().getLabels());
                    case GenericKubernetesResource g ->
                        assertThat(g.getKind()).isIn("IPAddressPool", "L2Advertisement");
                    default -> assertThat(object.getKind()).isEqualTo("ServiceAccount");
                }
                if (object.getMetadata().getNamespace() == null) {
                    assertThat(object.getKind())
                            .isIn("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding");
                }
            }
        }
    }

    static void assertControllerPod(PodSpec pod) {
        Container c = pod.getContainers().getFirst();
        assertThat(c.getArgs()).startsWith("controller");
        assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getPorts().getFirst().getContainerPort()).isEqualTo(7472);
        // POD_NAME: the replica's identity in the leader election's Lease
        assertThat(c.getEnv())
                .extracting(e -> e.getName() + "="
                        + (e.getValueFrom() == null
                                ? e.getValue()
                                : e.getValueFrom().getFieldRef().getFieldPath()))
                .contains("POD_NAME=metadata.name", "POD_NAMESPACE=metadata.namespace")
                .anyMatch(e -> e.startsWith("JDK_JAVA_OPTIONS=") && e.contains("-XX:MaxRAMPercentage="));
        assertThat(pod.getServiceAccountName()).isEqualTo(Manifests.CONTROLLER);
    }

    static void assertSpeakerPod(PodSpec pod, java.util.Map<String, String> labels) {
        Container c = pod.getContainers().getFirst();
        assertThat(c.getArgs()).startsWith("speaker").doesNotContain("--ignore-exclude-lb");
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getTerminationGracePeriodSeconds()).isBetween(2L, 5L);
        assertThat(pod.getTolerations()).anyMatch(t -> "node-role.kubernetes.io/control-plane".equals(t.getKey()));
        assertThat(c.getSecurityContext().getCapabilities().getAdd())
                .containsExactly("NET_RAW", "SYS_NICE", "NET_BIND_SERVICE");
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getEnv())
                .extracting(e -> e.getName() + "="
                        + (e.getValueFrom() == null
                                ? e.getValue()
                                : e.getValueFrom().getFieldRef().getFieldPath()))
                .contains("NODE_NAME=spec.nodeName", "POD_NAME=metadata.name", "POD_NAMESPACE=metadata.namespace")
                .anyMatch(e -> e.startsWith("JDK_JAVA_OPTIONS=") && e.contains("-XX:MaxRAMPercentage="));
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getPorts().getFirst().getHostPort()).isEqualTo(7472);
        // the failure detector: heartbeats between nodes on UDP 7947, the port passed explicitly
        assertThat(c.getArgs()).contains("--peer-port=7947", "--bgp-listen-port=179");
        assertThat(c.getPorts())
                .filteredOn(p -> "peers".equals(p.getName()))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.getProtocol()).isEqualTo("UDP");
                    assertThat(p.getContainerPort()).isEqualTo(7947);
                    assertThat(p.getHostPort()).isEqualTo(7947);
                });
        // the speaker finds its peers by these (ClusterNames.SPEAKER_POD_LABELS)
        assertThat(labels).containsAllEntriesOf(ClusterNames.SPEAKER_POD_LABELS);
    }

    /** The heap a role's JVM gives itself under a memory limit of {@code limit}, with its manifest's JDK_JAVA_OPTIONS. */
    static long maxHeap(String role, String limit) throws IOException, InterruptedException {
        String options = Manifests.render(InstallValues.defaults()).stream()
                .map(o -> o instanceof DaemonSet d
                        ? d.getSpec().getTemplate().getSpec()
                        : o instanceof Deployment d ? d.getSpec().getTemplate().getSpec() : null)
                .filter(pod ->
                        pod != null && pod.getContainers().getFirst().getName().equals(role))
                .findFirst()
                .orElseThrow()
                .getContainers()
                .getFirst()
                .getEnv()
                .stream()
                .filter(e -> e.getName().equals("JDK_JAVA_OPTIONS"))
                .findFirst()
                .orElseThrow()
                .getValue();
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxRAM=" + Quantity.getAmountInBytes(new Quantity(limit)).longValueExact(),
                "-XX:+UseSerialGC"));
        command.addAll(List.of(options.split(" ")));
        command.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jvm.waitFor()).as(out).isZero();
        var heap = java.util.regex.Pattern.compile("size_t MaxHeapSize\\s+= (\\d+)")
                .matcher(out);
        assertThat(heap.find()).as(out).isTrue();
        return Long.parseLong(heap.group(1));
    }

    @Test
    void theSpeakersHeapIsAQuarterOfItsMemoryLimitWhateverTheLimit() throws Exception {
        // both percentages: with MaxRAMPercentage alone, a JVM under 256Mi would still take half (MinRAMPercentage)
        assertThat(maxHeap("speaker", "256Mi")).isEqualTo(64L << 20);
        assertThat(maxHeap("speaker", "512Mi")).isEqualTo(128L << 20);
        assertThat(maxHeap("speaker", "1Gi")).isEqualTo(256L << 20);
    }

    @Test
    void theControllersHeapIsAQuarterOfItsMemoryLimitSoThatARaisedLimitGivesItMore() throws Exception {
        // the JVM's own sizing keeps about 126 MiB from 256Mi up to 512Mi
        assertThat(maxHeap("controller", "256Mi")).isEqualTo(64L << 20);
        assertThat(maxHeap("controller", "512Mi")).isEqualTo(128L << 20);
        assertThat(maxHeap("controller", "1Gi")).isEqualTo(256L << 20);
    }

    @Test
    void twoControllersByDefaultThatRollAndDrainOneAtATimeOnDifferentNodes() {
        List<HasMetadata> objects = Manifests.render(InstallValues.defaults());
        Deployment controller = objects.stream()
                .filter(o -> o instanceof Deployment)
                .map(o -> (Deployment) o)
                .findFirst()
                .orElseThrow();
        assertThat(controller.getSpec().getReplicas()).isEqualTo(2);
        // a new replica starts (and is ready: a standby is) before an old one stops, so one always stands by
        assertThat(controller.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(controller
                        .getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxUnavailable()
                        .getIntVal())
                .isZero();
        assertThat(controller
                        .getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxSurge()
                        .getIntVal())
                .isEqualTo(1);
        // on different nodes where there are several, preferred so that a one-node cluster runs both
        var pod = controller.getSpec().getTemplate().getSpec();
        assertThat(pod.getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                .isNullOrEmpty();
        var preferred = pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
        assertThat(preferred).singleElement().satisfies(term -> {
            assertThat(term.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(term.getPodAffinityTerm().getLabelSelector().getMatchLabels())
                    .isEqualTo(controller.getSpec().getTemplate().getMetadata().getLabels());
        });
        // a drain evicts one at a time, and still goes through with a single replica
        PodDisruptionBudget budget = objects.stream()
                .filter(o -> o instanceof PodDisruptionBudget)
                .map(o -> (PodDisruptionBudget) o)
                .findFirst()
                .orElseThrow();
        assertThat(budget.getMetadata().getNamespace()).isEqualTo(InstallValues.DEFAULT_NAMESPACE);
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(budget.getSpec().getMinAvailable()).isNull();
        assertThat(budget.getSpec().getSelector().getMatchLabels())
                .isEqualTo(controller.getSpec().getSelector().getMatchLabels());

        var one = (Deployment) Manifests.controller(InstallValues.defaults().withControllerReplicas(1));
        assertThat(one.getSpec().getReplicas()).isEqualTo(1);
    }

    @Test
    void flagsReachTheContainers() {
        var values = InstallValues.defaults()
                .withIgnoreExcludeLb(true)
                .withSpeakerNetAdmin(true)
                .withLbClass(Optional.of("x/y"))
                .withImage("reg:5000/lbk8s:dev")
                .withNamespace("lb");
        var speaker = (DaemonSet) Manifests.speaker(values);
        Container c = speaker.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getArgs()).contains("--ignore-exclude-lb", "--lb-class=x/y");
        assertThat(c.getImage()).isEqualTo("reg:5000/lbk8s:dev");
        assertThat(c.getSecurityContext().getCapabilities().getAdd())
                .containsExactly("NET_RAW", "SYS_NICE", "NET_BIND_SERVICE", "NET_ADMIN");
        Container inKernel = ((DaemonSet)
                        Manifests.speaker(InstallValues.defaults().withSpeakerArpInKernel(true)))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
        assertThat(inKernel.getSecurityContext().getCapabilities().getAdd())
                .containsExactly("NET_RAW", "SYS_NICE", "NET_BIND_SERVICE", "NET_ADMIN", "BPF");
        assertThat(((Deployment) Manifests.controller(values))
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getArgs())
                .contains("--lb-class=x/y");
        assertThat(Manifests.render(values))
                .allMatch(o -> o.getMetadata().getNamespace() == null
                        || o.getMetadata().getNamespace().equals("lb"));
    }

    @Test
    void zeroAsTheBgpListenPortMakesTheSpeakersOnlyConnectOut() {
        assertThat(((DaemonSet) Manifests.speaker(InstallValues.defaults().withBgpListenPort(0)))
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getArgs())
                .contains("--bgp-listen-port=0")
                .doesNotContain("--bgp-listen-port=179");
    }

    @Test
    void thePeerPortIsPassedAndDeclaredAndZeroTurnsTheDetectorOff() {
        Container other = ((DaemonSet)
                        Manifests.speaker(InstallValues.defaults().withPeerPort(7950)))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
        assertThat(other.getArgs()).contains("--peer-port=7950").doesNotContain("--peer-port=7947");
        assertThat(other.getPorts())
                .extracting(p -> p.getName() + " " + p.getContainerPort() + "/" + p.getProtocol())
                .containsExactly("monitoring 7472/TCP", "peers 7950/UDP");
        Container off = ((DaemonSet) Manifests.speaker(InstallValues.defaults().withPeerPort(0)))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
        assertThat(off.getArgs()).contains("--peer-port=0");
        assertThat(off.getPorts())
                .extracting(p -> p.getName())
                .containsExactly("monitoring"); // port 0 is no port to declare
        assertThat(off.getSecurityContext().getCapabilities().getAdd()).contains("SYS_NICE");
    }

    @Test
    void theKeySecretIsInstallsToMakeNotInTheManifests() {
        // no key in deploy/lbk8s.yaml or any dry run: every cluster applying it would share that key
        assertThat(Manifests.render(InstallValues.defaults()))
                .noneMatch(o -> o instanceof Secret || "Secret".equals(o.getKind()));
        var random = new SecureRandom();
        String keys = Manifests.newPeerKeys(random);
        assertThat(keys).matches("[0-9a-f]{64}\n").isNotEqualTo(Manifests.newPeerKeys(random));
        Secret secret = Manifests.peerSecret("lb", keys);
        assertThat(secret.getMetadata().getName()).isEqualTo("lbk8s-speaker-peers");
        assertThat(secret.getMetadata().getNamespace()).isEqualTo("lb");
        assertThat(secret.getMetadata().getLabels())
                .containsEntry(Manifests.MANAGED_BY_LABEL, Manifests.MANAGED_BY)
                .containsEntry(Manifests.COMPONENT_LABEL, "speaker");
        assertThat(secret.getType()).isEqualTo("Opaque");
        assertThat(secret.getData()).containsOnlyKeys("keys");
        assertThat(new String(Base64.getDecoder().decode(secret.getData().get("keys")), StandardCharsets.UTF_8))
                .isEqualTo(keys);
    }

    @Test
    void theRenderedPoolIsAValidConfiguration() {
        var pool = Manifests.pool(
                InstallValues.defaults().withAddresses(List.of("10.5.0.200-10.5.0.250", "fd00::c8-fd00::fa")));
        var result = ConfigParser.parse(
                ConfigResources.sources(List.of(pool.get(0)), List.of(pool.get(1)), Optional.empty()));
        assertThat(result.problems()).isEmpty();
        assertThat(result.config().pools().getFirst().ranges()).hasSize(2);
        assertThat(result.config().l2Advertisements()).hasSize(1);
        assertThat(Manifests.pool(InstallValues.defaults().withAddresses(List.of())))
                .isEmpty();
    }
}

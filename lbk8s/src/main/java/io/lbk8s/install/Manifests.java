package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.lbk8s.kube.PeerKeySecret;
import io.lbk8s.peers.PeerSettings;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one source of truth for what lbk8s installs: {@code deploy/lbk8s.yaml} is this class's output with default
 * values, and the Helm chart is checked against it. Pure: values in, typed objects out.
 */
public final class Manifests {
    private Manifests() {}

    public static final String NAME = "lbk8s";
    public static final String CONTROLLER = "lbk8s-controller";
    public static final String SPEAKER = "lbk8s-speaker";
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "lbk8s-install";
    public static final String NAME_LABEL = "app.kubernetes.io/name";
    public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
    public static final String HEALTH_PORT_NAME = "monitoring";
    public static final String PEER_PORT_NAME = "peers";
    /** The speakers' heartbeat keys: a Secret in the install namespace, data key {@link #PEER_KEYS}. */
    public static final String PEER_SECRET = PeerSettings.DEFAULT_SECRET;

    public static final String PEER_KEYS = PeerKeySecret.FIELD;
    /**
     * Both roles' heap, on top of the image's JVM flags (the java launcher reads JDK_JAVA_OPTIONS): a quarter of the
     * memory limit (64 MiB of 256Mi) instead of the JVM's half. The speaker's live data is far below it, and a heap left
     * at half grows with its garbage: 230 MiB resident with 1,000 addresses, near the limit (bench/run,
     * docs/install.md#memory). Both percentages, so that the share holds for every limit; a larger limit, a larger heap.
     * Within it, a young generation of a fifth (not a third) and an old generation grown to keep 10-30% free after a full
     * collection (not 40-70%): with 1,000 addresses it committed 52 of its 64 MiB instead of all of it, 158 MiB resident
     * instead of 171 (DeployedRolesBenchmark). The controller's Services cache keeps only what it reads ({@link
     * io.lbk8s.kube.CompactServiceStore}): after a full collection it holds 37 MiB with 10,000 Services (58 MiB before);
     * a heap left at half grows with the garbage of assigning them to all of its 128 MiB (224 MiB resident), with a
     * quarter 161-163 MiB.
     */
    static final String HEAP_OPTIONS = "-XX:MaxRAMPercentage=25 -XX:MinRAMPercentage=25 -XX:NewRatio=4"
            + " -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30";

    /** Where the image holds the distribution (dist/pom.xml): its runtime, jars and AOT caches. */
    public static final String IMAGE_HOME = "/opt/lbk8s";

    /**
     * The heap and each role's AOT cache in the image, trained on that role alone: the JVM loads every class of its
     * cache when it starts, so a speaker on a cache trained on both roles held the controller's classes too, 6-9 MiB
     * resident (DeployedRolesBenchmark). The image's entrypoint names no cache, since it cannot tell the roles apart.
     */
    public static final String SPEAKER_JVM_OPTIONS =
            HEAP_OPTIONS + " -XX:AOTCache=" + IMAGE_HOME + "/lbk8s-speaker.aot";

    public static final String CONTROLLER_JVM_OPTIONS = HEAP_OPTIONS + " -XX:AOTCache=" + IMAGE_HOME + "/lbk8s.aot";

    /**
     * Every object, in the order to apply them (the namespace and CRDs before what lives in or uses them). All but
     * the speakers' key Secret ({@link #peerSecret}), which holds a secret: install creates it, never this output.
     */
    public static List<HasMetadata> render(InstallValues values) {
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(namespace(values));
        objects.addAll(Crds.load().stream()
                .map(crd -> {
                    crd.getMetadata().setLabels(labels(null));
                    return (HasMetadata) crd;
                })
                .toList());
        objects.add(serviceAccount(values, CONTROLLER, "controller"));
        objects.add(serviceAccount(values, SPEAKER, "speaker"));
        objects.add(clusterRole(CONTROLLER, "controller", Rbac.CONTROLLER_CLUSTER));
        objects.add(clusterRole(SPEAKER, "speaker", Rbac.SPEAKER_CLUSTER));
        objects.add(clusterRoleBinding(values, CONTROLLER, "controller"));
        objects.add(clusterRoleBinding(values, SPEAKER, "speaker"));
        objects.add(role(values, CONTROLLER, "controller", Rbac.CONTROLLER_NAMESPACE));
        objects.add(role(values, SPEAKER, "speaker", Rbac.SPEAKER_NAMESPACE));
        objects.add(roleBinding(values, CONTROLLER, "controller"));
        objects.add(roleBinding(values, SPEAKER, "speaker"));
        objects.add(controller(values));
        objects.add(controllerDisruptionBudget(values));
        objects.add(speaker(values));
        objects.addAll(pool(values));
        return List.copyOf(objects);
    }

    /**
     * The Secret with the speakers' heartbeat keys (their failure detector's): one key per line, each ending in a
     * newline; the first line signs, every line is accepted (which is how a key is rotated). Not in {@link #render},
     * so that deploy/lbk8s.yaml and dry runs carry no key that every cluster would share: {@code lbk8s install} creates it when it is missing and never replaces it, and with {@code kubectl
     * apply} the first speaker that finds it missing creates it.
     */
    public static Secret peerSecret(String namespace, String keys) {
        return PeerKeySecret.secret(namespace, PEER_SECRET, keys, labels("speaker"));
    }

    /** The content of a new {@link #peerSecret}: one key, 32 random bytes as 64 hex characters, and its newline. */
    public static String newPeerKeys(SecureRandom random) {
        return PeerKeySecret.newKeys(random);
    }

    /**
     * The pool and its L2Advertisement (MetalLB's CRDs), and with {@code --bgp-peer} a BGPPeer per router and a
     * BGPAdvertisement of the pool (to every peer, one route per address); none when no addresses are given.
     */
    public static List<GenericKubernetesResource> pool(InstallValues values) {
        if (values.addresses().isEmpty()) {
            return List.of();
        }
        List<GenericKubernetesResource> objects = new ArrayList<>(layer2Pool(values));
        for (BgpPeerOption peer : values.bgpPeers()) {
            objects.add(new GenericKubernetesResourceBuilder()
                    .withApiVersion("metallb.io/v1beta2")
                    .withKind("BGPPeer")
                    .withMetadata(meta(peer.name(), values.namespace(), null))
                    .addToAdditionalProperties(
                            "spec",
                            ordered(
                                    "myASN",
                                    peer.myAsn(),
                                    "peerASN",
                                    peer.peerAsn(),
                                    "peerAddress",
                                    peer.address().toString()))
                    .build());
        }
        if (!values.bgpPeers().isEmpty()) {
            objects.add(new GenericKubernetesResourceBuilder()
                    .withApiVersion("metallb.io/v1beta1")
                    .withKind("BGPAdvertisement")
                    .withMetadata(meta(values.poolName(), values.namespace(), null))
                    .addToAdditionalProperties("spec", ordered("ipAddressPools", List.of(values.poolName())))
                    .build());
        }
        return List.copyOf(objects);
    }

    private static List<GenericKubernetesResource> layer2Pool(InstallValues values) {
        return List.of(
                new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("IPAddressPool")
                        .withMetadata(meta(values.poolName(), values.namespace(), null))
                        .addToAdditionalProperties("spec", ordered("addresses", values.addresses()))
                        .build(),
                new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("L2Advertisement")
                        .withMetadata(meta(values.poolName(), values.namespace(), null))
                        .addToAdditionalProperties("spec", ordered("ipAddressPools", List.of(values.poolName())))
                        .build());
    }

    /** The reference design's example: whoami behind a LoadBalancer Service, in the default namespace. */
    public static List<HasMetadata> example() {
        Map<String, String> app = Map.of("app", "whoami");
        return List.of(
                new DeploymentBuilder()
                        .withMetadata(exampleMetadata(app))
                        .withNewSpec()
                        .withReplicas(2)
                        .withNewSelector()
                        .withMatchLabels(app)
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(app)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("whoami")
                        .withImage("traefik/whoami:v1.10")
                        .addNewPort()
                        .withName("http")
                        .withContainerPort(80)
                        .endPort()
                        .withResources(resources(new InstallValues.Resources("10m", "16Mi", "64Mi")))
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build(),
                new ServiceBuilder()
                        .withMetadata(exampleMetadata(app))
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(app)
                        .addNewPort()
                        .withName("http")
                        .withPort(80)
                        .withTargetPort(new IntOrString("http"))
                        .endPort()
                        .endSpec()
                        .build());
    }

    /** A new object each call: the Deployment and the Service must not share one that a caller may change. */
    private static ObjectMeta exampleMetadata(Map<String, String> app) {
        return new ObjectMetaBuilder()
                .withName("whoami")
                .withNamespace("default")
                .withLabels(app)
                .build();
    }

    // ---- the objects ----

    static HasMetadata namespace(InstallValues values) {
        Map<String, String> labels = labels(null);
        // Talos (and any cluster enforcing "baseline") refuses hostNetwork and NET_RAW: the speaker needs "privileged".
        for (String mode : List.of("enforce", "audit", "warn")) {
            labels.put("pod-security.kubernetes.io/" + mode, "privileged");
        }
        return new NamespaceBuilder()
                .withNewMetadata()
                .withName(values.namespace())
                .withLabels(labels)
                .endMetadata()
                .build();
    }

    private static HasMetadata serviceAccount(InstallValues values, String name, String component) {
        return new ServiceAccountBuilder()
                .withMetadata(meta(name, values.namespace(), component))
                .build();
    }

    private static HasMetadata clusterRole(String name, String component, List<Rbac.Rule> rules) {
        return new ClusterRoleBuilder()
                .withMetadata(meta(name, null, component))
                .withRules(Rbac.policyRules(rules))
                .build();
    }

    private static HasMetadata clusterRoleBinding(InstallValues values, String name, String component) {
        return new ClusterRoleBindingBuilder()
                .withMetadata(meta(name, null, component))
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
                .withSubjects(serviceAccountSubject(name, values.namespace()))
                .build();
    }

    private static HasMetadata role(InstallValues values, String name, String component, List<Rbac.Rule> rules) {
        return new RoleBuilder()
                .withMetadata(meta(name, values.namespace(), component))
                .withRules(Rbac.policyRules(rules))
                .build();
    }

    private static HasMetadata roleBinding(InstallValues values, String name, String component) {
        return new RoleBindingBuilder()
                .withMetadata(meta(name, values.namespace(), component))
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
                .withSubjects(serviceAccountSubject(name, values.namespace()))
                .build();
    }

    /** Who a binding grants its role to: the component's own ServiceAccount, named like the role. */
    private static Subject serviceAccountSubject(String name, String namespace) {
        return new SubjectBuilder()
                .withKind("ServiceAccount")
                .withName(name)
                .withNamespace(namespace)
                .build();
    }

    static HasMetadata controller(InstallValues values) {
        List<String> args = new ArrayList<>(List.of("controller", "--metrics-port=" + values.metricsPort()));
        values.lbClass().ifPresent(c -> args.add("--lb-class=" + c));
        // POD_NAME: the replica's identity in the leader election's Lease
        Container container = container(
                values,
                "controller",
                args,
                values.controllerResources(),
                new SecurityContextBuilder()
                        .withAllowPrivilegeEscalation(false)
                        .withReadOnlyRootFilesystem(true)
                        .withRunAsNonRoot(true)
                        .withRunAsUser(65532L)
                        .withRunAsGroup(65532L)
                        .withNewCapabilities()
                        .withDrop("ALL")
                        .endCapabilities()
                        .build(),
                List.of(
                        fieldEnv("POD_NAME", "metadata.name"),
                        fieldEnv("POD_NAMESPACE", "metadata.namespace"),
                        fieldEnv("NODE_NAME", "spec.nodeName"),
                        new EnvVar("JDK_JAVA_OPTIONS", CONTROLLER_JVM_OPTIONS, null)),
                false);
        PodSpec pod = podSpec(CONTROLLER, container)
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withFsGroup(65532L)
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                // the standby is worth little on the leader's node: the node's loss would take both. Preferred, not
                // required, so that a one-node cluster still runs both replicas
                .withNewAffinity()
                .withNewPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100)
                .withNewPodAffinityTerm()
                .withNewLabelSelector()
                .withMatchLabels(podLabels("controller"))
                .endLabelSelector()
                .withTopologyKey("kubernetes.io/hostname")
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity()
                .endAffinity()
                // the controller reschedules anywhere; it must not sit on a NoExecute-tainted node forever
                .build();
        return new DeploymentBuilder()
                .withMetadata(meta(CONTROLLER, values.namespace(), "controller"))
                .withNewSpec()
                .withReplicas(values.controllerReplicas())
                // Two controllers at once are safe: one leads (the Lease), and even two leaders cannot hand out one
                // address twice (each address is an IPAddressClaim, which the API server creates once). So a rolling
                // update, and one that starts the new replica before it stops an old one (maxUnavailable 0): a standby
                // is there to take over when the leader is stopped, at every step of the rollout
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(new IntOrString(1))
                .withMaxUnavailable(new IntOrString(0))
                .endRollingUpdate()
                .endStrategy()
                .withNewSelector()
                .withMatchLabels(podLabels("controller"))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels("controller"))
                .endMetadata()
                .withSpec(pod)
                .endTemplate()
                .endSpec()
                .build();
    }

    /**
     * A node drain evicts one controller at a time, so that the other keeps assigning addresses. maxUnavailable rather
     * than minAvailable: with a single replica a drain still goes through (minAvailable 1 would block it for good).
     */
    static HasMetadata controllerDisruptionBudget(InstallValues values) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(meta(CONTROLLER, values.namespace(), "controller"))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .withMatchLabels(podLabels("controller"))
                .endSelector()
                .endSpec()
                .build();
    }

    static HasMetadata speaker(InstallValues values) {
        List<String> args = new ArrayList<>(List.of("speaker", "--metrics-port=" + values.metricsPort()));
        values.lbClass().ifPresent(c -> args.add("--lb-class=" + c));
        if (values.ignoreExcludeLb()) {
            args.add("--ignore-exclude-lb");
        }
        args.add("--peer-port=" + values.peerPort()); // explicit, also when 0 (the failure detector off)
        args.add("--bgp-listen-port=" + values.bgpListenPort());
        // SYS_NICE: the failure detector's thread runs at real-time priority, so that a starved CPU does not make
        // the other speakers take this node's addresses; NET_BIND_SERVICE: routers connect to BGP's port 179
        List<String> capabilities = new ArrayList<>(List.of("NET_RAW", "SYS_NICE", "NET_BIND_SERVICE"));
        if (values.speakerNetAdmin() || values.speakerArpInKernel()) {
            capabilities.add("NET_ADMIN");
        }
        if (values.speakerArpInKernel()) {
            capabilities.add("BPF"); // with NET_ADMIN: load the XDP program and attach it (docs/decisions/0003)
        }
        // Root without any capability but these: Kubernetes grants added capabilities to uid 0 only (no ambient
        // capabilities for other users), and raw sockets for ARP/NDP need NET_RAW.
        Container container = container(
                values,
                "speaker",
                args,
                values.speakerResources(),
                new SecurityContextBuilder()
                        .withAllowPrivilegeEscalation(false)
                        .withReadOnlyRootFilesystem(true)
                        .withRunAsUser(0L)
                        .withRunAsNonRoot(false)
                        .withNewCapabilities()
                        .withDrop("ALL")
                        .withAdd(capabilities)
                        .endCapabilities()
                        .build(),
                List.of(
                        fieldEnv("NODE_NAME", "spec.nodeName"),
                        fieldEnv("POD_NAME", "metadata.name"),
                        fieldEnv("POD_NAMESPACE", "metadata.namespace"),
                        new EnvVar("JDK_JAVA_OPTIONS", SPEAKER_JVM_OPTIONS, null)),
                true);
        if (values.peerPort() != 0) {
            // the failure detector's heartbeats, between nodes; hostNetwork: the port is the node's
            container = new ContainerBuilder(container)
                    .addNewPort()
                    .withName(PEER_PORT_NAME)
                    .withContainerPort(values.peerPort())
                    .withHostPort(values.peerPort())
                    .withProtocol("UDP")
                    .endPort()
                    .build();
        }
        PodSpec pod = podSpec(SPEAKER, container)
                .withHostNetwork(true)
                .withDnsPolicy("ClusterFirstWithHostNet")
                // the speaker withdraws and hands over in about a second; a long grace only delays the handover
                .withTerminationGracePeriodSeconds(3L)
                .withTolerations(
                        new TolerationBuilder()
                                .withKey("node-role.kubernetes.io/control-plane")
                                .withOperator("Exists")
                                .withEffect("NoSchedule")
                                .build(),
                        new TolerationBuilder()
                                .withKey("node-role.kubernetes.io/master")
                                .withOperator("Exists")
                                .withEffect("NoSchedule")
                                .build())
                .build();
        return new DaemonSetBuilder()
                .withMetadata(meta(SPEAKER, values.namespace(), "speaker"))
                .withNewSpec()
                .withNewSelector()
                .withMatchLabels(podLabels("speaker"))
                .endSelector()
                .withNewUpdateStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(1))
                .endRollingUpdate()
                .endUpdateStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(podLabels("speaker"))
                .endMetadata()
                .withSpec(pod)
                .endTemplate()
                .endSpec()
                .build();
    }

    private static PodSpecBuilder podSpec(String serviceAccount, Container container) {
        return new PodSpecBuilder()
                .withServiceAccountName(serviceAccount)
                .withNodeSelector(Map.of("kubernetes.io/os", "linux"))
                .withContainers(container)
                // the JVM's temporary files (such as the socket jcmd attaches through) go to /tmp; the root filesystem
                // is read-only
                .addNewVolume()
                .withName("tmp")
                .withNewEmptyDir()
                .withMedium("Memory")
                .withSizeLimit(new Quantity("16Mi"))
                .endEmptyDir()
                .endVolume();
    }

    private static Container container(
            InstallValues values,
            String name,
            List<String> args,
            InstallValues.Resources resources,
            SecurityContext securityContext,
            List<EnvVar> env,
            boolean hostPort) {
        var port = new io.fabric8.kubernetes.api.model.ContainerPortBuilder()
                .withName(HEALTH_PORT_NAME)
                .withContainerPort(values.metricsPort())
                .withProtocol("TCP");
        if (hostPort) {
            port.withHostPort(values.metricsPort()); // hostNetwork: the metrics port is the node's
        }
        return new ContainerBuilder()
                .withName(name)
                .withImage(values.image())
                .withImagePullPolicy(values.imagePullPolicy())
                .withArgs(args)
                .withEnv(env)
                .withPorts(port.build())
                .withLivenessProbe(probe("/healthz", 10, 3))
                .withReadinessProbe(probe("/readyz", 5, 1))
                .withResources(resources(resources))
                .withSecurityContext(securityContext)
                .addNewVolumeMount()
                .withName("tmp")
                .withMountPath("/tmp")
                .endVolumeMount()
                .build();
    }

    private static Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString(HEALTH_PORT_NAME))
                .endHttpGet()
                .withInitialDelaySeconds(2)
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(2)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    private static ResourceRequirements resources(InstallValues.Resources r) {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(r.cpuRequest()))
                .addToRequests("memory", new Quantity(r.memoryRequest()))
                .addToLimits("memory", new Quantity(r.memoryLimit()))
                .build();
    }

    private static EnvVar fieldEnv(String name, String fieldPath) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath(fieldPath)
                .endFieldRef()
                .endValueFrom()
                .build();
    }

    // ---- metadata ----

    /** The labels of every installed object; {@code managed-by} is how uninstall finds them. */
    static Map<String, String> labels(String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(NAME_LABEL, NAME);
        if (component != null) {
            labels.put(COMPONENT_LABEL, component);
        }
        labels.put(MANAGED_BY_LABEL, MANAGED_BY);
        return labels;
    }

    /** Pod labels double as selectors (immutable) and as the speaker's way to find its peers: name and component only. */
    static Map<String, String> podLabels(String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(NAME_LABEL, NAME);
        labels.put(COMPONENT_LABEL, component);
        return labels;
    }

    private static ObjectMeta meta(String name, String namespace, String component) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels(component))
                .build();
    }

    /** A map that keeps its keys in the order given, for YAML that reads like the docs: key, value, key, value... */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}

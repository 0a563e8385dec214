package io.lbk8s.testkit.sandbox;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.Shell;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;

/**
 * A sandbox cluster: lbk8s as it runs in a cluster, on a real layer-2 network of namespaces: an API server on the
 * host leg (the real kube-apiserver when there is a Kubernetes build, else the test API server:
 * {@link SandboxApiServer}), the controller as a process, and a speaker process in each node namespace, each started through
 * {@code bin/lbk8s} from the built jar. The Nodes and speaker Pods a kubelet would keep up to date are written by
 * this harness: Nodes Ready, and each speaker Pod Ready once its {@code /readyz} answers 200 (its readiness probe); so
 * are the EndpointSlices of Services with a selector ({@link EndpointSliceController}: every node's backend, ready).
 * The end-to-end tests, the demo and the benchmarks run on it; it never ships.
 */
public final class Sandbox implements AutoCloseable {
    public static final String NAMESPACE = "lbk8s-system";
    public static final int METRICS_PORT = 7472;
    public static final Path REPO = locateRepo();
    public static final ResourceDefinitionContext SERVICE_L2_STATUSES = new ResourceDefinitionContext.Builder()
            .withGroup("metallb.io")
            .withVersion("v1beta1")
            .withKind("ServiceL2Status")
            .withPlural("servicel2statuses")
            .withNamespaced(true)
            .build();
    public static final Map<String, String> SPEAKER_LABELS =
            Map.of("app.kubernetes.io/name", "lbk8s", "app.kubernetes.io/component", "speaker");

    public final TestNetwork network;
    public final Path logs;
    public final Path kubeconfig;
    public final KubernetesClient client;
    private final SandboxApiServer apiServer;
    private Process controller;
    private EndpointSliceController endpointSlices;
    private final Map<String, NamespacedProcess> speakers = new LinkedHashMap<>();
    private final List<String> speakerArgs;
    private final Path controllerLauncher;
    private final Path speakerLauncher;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private Sandbox(
            TestNetwork network, Path logs, Path controllerLauncher, Path speakerLauncher, List<String> speakerArgs)
            throws IOException, InterruptedException {
        this.network = network;
        this.logs = logs;
        this.kubeconfig = logs.resolve("kubeconfig");
        this.controllerLauncher = controllerLauncher;
        this.speakerLauncher = speakerLauncher;
        this.speakerArgs = List.copyOf(speakerArgs);
        apiServer = SandboxApiServer.start(network, logs);
        KubernetesClient connected = null;
        try {
            connected = apiServer.newClient();
            client = connected;
            startEverythingElse();
        } catch (IOException | RuntimeException e) {
            // nothing started here may outlive a failed start
            speakers.values().forEach(p -> p.stop(Duration.ofSeconds(3)));
            stop(controller);
            if (endpointSlices != null) {
                endpointSlices.close();
            }
            if (connected != null) {
                connected.close();
            }
            apiServer.close();
            throw e;
        }
    }

    private void startEverythingElse() throws IOException {
        // the speakers' Pods use the host network: privileged, as lbk8s install labels its namespace
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NAMESPACE)
                        .withLabels(Map.of(
                                "pod-security.kubernetes.io/enforce", "privileged",
                                "pod-security.kubernetes.io/audit", "privileged",
                                "pod-security.kubernetes.io/warn", "privileged"))
                        .endMetadata()
                        .build())
                .create();
        apiServer.awaitPodsAdmitted(client, NAMESPACE);
        for (TestNode node : network.nodes()) {
            createNode(node);
            createSpeakerPod(node);
        }
        endpointSlices = new EndpointSliceController(client, network.nodes());
        // The controller runs on the host, outside the network's namespaces: a watcher of its stdin stops it when
        // this JVM dies without closing the sandbox (as the API server does), so it never outlives its owner.
        controller = new ProcessBuilder(
                        "/bin/bash",
                        "-c",
                        Shell.DIES_WITH_STDIN,
                        "lbk8s-controller",
                        controllerLauncher.toString(),
                        "controller",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "-n",
                        NAMESPACE,
                        "--metrics-address",
                        "127.0.0.1",
                        "--metrics-port",
                        "0")
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve("controller.log").toFile())
                .start();
        for (TestNode node : network.nodes()) {
            startSpeaker(node);
        }
        for (TestNode node : network.nodes()) {
            awaitSpeakerReadyAndMarkPod(node);
        }
    }

    /** Builds the network and starts everything; logs (and the kubeconfig) go to {@code logs}. */
    public static Sandbox start(Path logs) throws IOException, InterruptedException {
        return start(logs, TestNetwork.DEFAULT_NODE_COUNT, List.of());
    }

    /** As {@link #start(Path)}, with {@code nodes} nodes and {@code speakerArgs} added to every speaker's command line. */
    public static Sandbox start(Path logs, int nodes, List<String> speakerArgs)
            throws IOException, InterruptedException {
        return start(logs, nodes, REPO.resolve("bin/lbk8s"), speakerArgs);
    }

    /**
     * As {@link #start(Path, int, List)}, with the speakers run by {@code speakerLauncher} (a command taking lbk8s's
     * arguments, like {@code bin/lbk8s}; the benchmarks' own runs the distribution in a memory-limited group). It must
     * exec the JVM, so that the speaker's process is the JVM.
     */
    public static Sandbox start(Path logs, int nodes, Path speakerLauncher, List<String> speakerArgs)
            throws IOException, InterruptedException {
        return start(logs, nodes, REPO.resolve("bin/lbk8s"), speakerLauncher, speakerArgs);
    }

    /** As {@link #start(Path, int, Path, List)}, with the controller run by {@code controllerLauncher} as well. */
    public static Sandbox start(
            Path logs, int nodes, Path controllerLauncher, Path speakerLauncher, List<String> speakerArgs)
            throws IOException, InterruptedException {
        Files.createDirectories(logs);
        TestNetwork network = TestNetwork.create(nodes, logs);
        try {
            return new Sandbox(network, logs, controllerLauncher, speakerLauncher, speakerArgs);
        } catch (IOException | InterruptedException | RuntimeException e) {
            network.close();
            throw e;
        }
    }

    private static Path locateRepo() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("bin/lbk8s"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the repository root (with bin/lbk8s) above "
                    + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    // ---- the kubelet's part ----

    private void createNode(TestNode node) {
        client.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(node.name())
                        .withLabels(Map.of("kubernetes.io/hostname", node.name(), "kubernetes.io/os", "linux"))
                        .endMetadata()
                        .build())
                .create();
        setNodeReady(node, true);
    }

    public void setNodeReady(TestNode node, boolean ready) {
        Node current = client.nodes().withName(node.name()).get();
        List<NodeCondition> conditions = new ArrayList<>();
        conditions.add(new NodeConditionBuilder()
                .withType("Ready")
                .withStatus(ready ? "True" : "Unknown")
                .withReason(ready ? "KubeletReady" : "NodeStatusUnknown")
                .withLastTransitionTime(now())
                .build());
        current.setStatus(
                current.getStatus() == null ? new io.fabric8.kubernetes.api.model.NodeStatus() : current.getStatus());
        current.getStatus().setConditions(conditions);
        current.getStatus()
                .setAddresses(List.of(new io.fabric8.kubernetes.api.model.NodeAddress(
                        node.ipv4().getHostAddress(), "InternalIP")));
        client.nodes().resource(current).updateStatus();
    }

    public void label(TestNode node, String key, String value) {
        client.nodes().withName(node.name()).edit(n -> {
            if (value == null) {
                n.getMetadata().getLabels().remove(key);
            } else {
                n.getMetadata().getLabels().put(key, value);
            }
            return n;
        });
    }

    /** The speaker Pod of a node as the DaemonSet makes it (host network), with no status yet. */
    public static Pod speakerPod(String nodeName) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("speaker-" + nodeName)
                .withNamespace(NAMESPACE)
                .withLabels(SPEAKER_LABELS)
                .endMetadata()
                .withNewSpec()
                .withNodeName(nodeName)
                .withHostNetwork(true)
                .addNewContainer()
                .withName("speaker")
                .withImage("lbk8s:test")
                .endContainer()
                .endSpec()
                .build();
    }

    public static String podName(TestNode node) {
        return speakerPod(node.name()).getMetadata().getName();
    }

    private void createSpeakerPod(TestNode node) {
        client.pods().inNamespace(NAMESPACE).resource(speakerPod(node.name())).create();
        setSpeakerPodReady(node, false);
    }

    /** As the kubelet writes a Pod's status: read, change, write, again on a conflict (the speaker annotates its Pod too). */
    public void setSpeakerPodReady(TestNode node, boolean ready) {
        for (int attempt = 1; ; attempt++) {
            Pod pod =
                    client.pods().inNamespace(NAMESPACE).withName(podName(node)).get();
            pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                    .withPhase("Running")
                    .withConditions(new PodConditionBuilder()
                            .withType("Ready")
                            .withStatus(ready ? "True" : "False")
                            .withLastTransitionTime(now())
                            .build())
                    .build());
            try {
                client.pods().inNamespace(NAMESPACE).resource(pod).updateStatus();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    public boolean speakerPodReady(TestNode node) {
        Pod pod = client.pods().inNamespace(NAMESPACE).withName(podName(node)).get();
        return pod != null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    public void startSpeaker(TestNode node) {
        List<String> command = new ArrayList<>(List.of(
                speakerLauncher.toString(),
                "speaker",
                "--node",
                node.name(),
                "--pod-name",
                podName(node),
                "-n",
                NAMESPACE,
                "--kubeconfig",
                kubeconfig.toString(),
                "--metrics-address",
                node.ipv4().getHostAddress(),
                "--metrics-port",
                String.valueOf(METRICS_PORT)));
        command.addAll(speakerArgs);
        NamespacedProcess speaker =
                network.start(node.namespace(), command, logs.resolve("speaker-" + node.name() + ".log"));
        speakers.put(node.name(), speaker);
    }

    // The failures the LAN sees (TestNetwork.freeze, linkDown, a speaker's kill) touch nothing in the API.

    /** Which API server the sandbox runs: {@link SandboxApiServer}. */
    public String apiServerDescription() {
        return apiServer.description();
    }

    /** Write requests (create, update, patch, delete) the API server has served since it started. */
    public long apiWrites() {
        return apiServer.writes();
    }

    /** What the kubelet's readiness probe does: the Pod turns Ready once /readyz answers 200. */
    public void awaitSpeakerReadyAndMarkPod(TestNode node) {
        poll("the speaker on " + node.name() + " to be ready", Duration.ofSeconds(60), () -> {
            if (!speakers.get(node.name()).isAlive()) {
                throw new IllegalStateException("speaker on " + node.name() + " exited:\n"
                        + speakers.get(node.name()).logTail(30));
            }
            return readyz(node).map(r -> r.startsWith("200")).orElse(false);
        });
        setSpeakerPodReady(node, true);
    }

    public Optional<String> readyz(TestNode node) {
        return httpGet(URI.create("http://" + node.ipv4().getHostAddress() + ":" + METRICS_PORT + "/readyz"));
    }

    public Optional<String> metrics(TestNode node) {
        return httpGet(URI.create("http://" + node.ipv4().getHostAddress() + ":" + METRICS_PORT + "/metrics"));
    }

    /** The controller's /metrics as {@link #metrics} answers, once its log has said the port (empty before). */
    public Optional<String> controllerMetrics() {
        Matcher port;
        try {
            port = ControllerReplica.METRICS_PORT.matcher(Files.readString(logs.resolve("controller.log")));
        } catch (IOException e) {
            return Optional.empty();
        }
        return port.find() ? httpGet(URI.create("http://127.0.0.1:" + port.group(1) + "/metrics")) : Optional.empty();
    }

    private Optional<String> httpGet(URI uri) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return Optional.of(response.statusCode() + " " + response.body());
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    public NamespacedProcess speaker(TestNode node) {
        return speakers.get(node.name());
    }

    /** Restarts a stopped speaker and brings its Pod back to Ready, as a DaemonSet would. */
    public void restartSpeaker(TestNode node) {
        NamespacedProcess old = speakers.get(node.name());
        if (old.isAlive()) {
            old.stop(Duration.ofSeconds(5));
        }
        setSpeakerPodReady(node, false);
        startSpeaker(node);
        awaitSpeakerReadyAndMarkPod(node);
    }

    // ---- what a user does ----

    /**
     * Creates a metallb.io object (IPAddressPool, L2Advertisement, BGPAdvertisement...) in the lbk8s namespace, as
     * kubectl would, in the version MetalLB's documentation writes it: v1beta2 for a BGPPeer, v1beta1 otherwise.
     */
    public void createMetallb(String kind, String name, String specYaml) {
        String version = kind.equals("BGPPeer") ? "v1beta2" : "v1beta1";
        String yaml = "apiVersion: metallb.io/" + version + "\nkind: " + kind + "\nmetadata: {name: " + name
                + ", namespace: " + NAMESPACE + "}\nspec: " + specYaml + "\n";
        GenericKubernetesResource resource =
                client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        String plural = kind.toLowerCase(java.util.Locale.ROOT) + "s";
        client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup("metallb.io")
                        .withVersion(version)
                        .withKind(kind)
                        .withPlural(plural)
                        .withNamespaced(true)
                        .build())
                .inNamespace(NAMESPACE)
                .resource(resource)
                .create();
    }

    /**
     * What most failover tests and benchmarks start from: a pool of the network's IPv4 range and an L2Advertisement
     * (both named {@code name}), and a LoadBalancer Service {@code default/name} on port 80; its address once assigned.
     */
    public InetAddress createLoadBalancer(String name) {
        createMetallb("IPAddressPool", name, "{addresses: ['" + network.ipv4Pool() + "']}");
        createMetallb("L2Advertisement", name, "{}");
        client.services()
                .resource(new io.fabric8.kubernetes.api.model.ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(Map.of("app", name))
                        .addNewPort()
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
        return address(awaitIngressIps("default", name, 1).getFirst());
    }

    // ---- what a user looks at ----

    /**
     * Waits until every speaker's failure detector hears every other speaker and lets its node announce, as each
     * speaker's /metrics say.
     */
    public void awaitPeersAgree(Duration timeout) {
        long peers = network.nodes().size() - 1;
        poll(
                "every speaker to hear the others and may announce",
                timeout,
                () -> network.nodes().stream()
                        .allMatch(n -> metrics(n)
                                .map(m -> m.contains("lbk8s_peers_ready 1.0")
                                        && m.lines()
                                                        .filter(l -> l.startsWith("lbk8s_peers_peer_state{")
                                                                && l.contains("state=\"alive\""))
                                                        .count()
                                                == peers)
                                .orElse(false)));
    }

    /**
     * The node that serves {@code default/service} at {@code ip}, once its ServiceL2Status names it and the client's
     * curl is answered by its backend (right after a restart an old leader's object can linger a moment).
     */
    public TestNode awaitServingNode(String service, InetAddress ip, Duration timeout) {
        TestNode[] agreed = new TestNode[1];
        String[] seen = {"nothing yet"};
        try {
            poll("one node to announce " + ip.getHostAddress() + " and serve the client", timeout, () -> {
                List<String> named = l2StatusNodes("default", service);
                if (named.size() != 1 || named.contains("?")) {
                    seen[0] = "ServiceL2Status objects name " + named;
                    return false;
                }
                agreed[0] = nodeNamed(named.getFirst());
                Optional<String> answer = network.client().curl(ip, Duration.ofMillis(500));
                seen[0] = "ServiceL2Status names " + named + ", curl answered " + answer.orElse("nothing");
                return answer.equals(Optional.of(agreed[0].backendBody()))
                        && l2StatusNodes("default", service).equals(named);
            });
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "; last seen: " + seen[0], e);
        }
        return agreed[0];
    }

    /** The node whose backend answers with {@code body}. */
    public Optional<TestNode> nodeWithBackend(String body) {
        return network.nodes().stream()
                .filter(n -> n.backendBody().equals(body))
                .findFirst();
    }

    /** The wall clock in microseconds, as the client-side probes and captures stamp their lines. */
    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    public TestNode nodeNamed(String name) {
        return network.nodes().stream()
                .filter(n -> n.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    public TestNode nodeWithMac(String mac) {
        return network.nodes().stream()
                .filter(n -> n.mac().equalsIgnoreCase(mac))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no node has MAC " + mac));
    }

    public Service service(String namespace, String name) {
        return client.services().inNamespace(namespace).withName(name).get();
    }

    public List<String> ingressIps(String namespace, String name) {
        Service s = service(namespace, name);
        if (s == null
                || s.getStatus() == null
                || s.getStatus().getLoadBalancer() == null
                || s.getStatus().getLoadBalancer().getIngress() == null) {
            return List.of();
        }
        return s.getStatus().getLoadBalancer().getIngress().stream()
                .map(i -> i.getIp())
                .toList();
    }

    public List<String> awaitIngressIps(String namespace, String name, int count) {
        poll(
                namespace + "/" + name + " to get " + count + " address(es)",
                Duration.ofSeconds(20),
                () -> ingressIps(namespace, name).size() == count);
        return ingressIps(namespace, name);
    }

    public List<Event> events(String namespace, String name) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> e.getInvolvedObject() != null
                        && name.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    /** The ServiceL2Status objects of a Service: `kubectl get servicel2statuses -n lbk8s-system`. */
    public List<GenericKubernetesResource> l2Statuses(String namespace, String name) {
        return client.genericKubernetesResources(SERVICE_L2_STATUSES)
                .inNamespace(NAMESPACE)
                .withLabel("metallb.io/service-name", name)
                .withLabel("metallb.io/service-namespace", namespace)
                .list()
                .getItems();
    }

    /**
     * The node that announces a Service, as {@code kubectl get servicel2statuses} shows it: present once exactly one
     * ServiceL2Status names a node (during a handover there may briefly be none or two).
     */
    public Optional<String> announcingNode(String namespace, String name) {
        List<String> nodes = l2StatusNodes(namespace, name);
        return nodes.size() == 1 && !nodes.getFirst().equals("?") ? Optional.of(nodes.getFirst()) : Optional.empty();
    }

    /** The node each ServiceL2Status of the Service names ("?" for one without a node). */
    @SuppressWarnings("unchecked")
    public List<String> l2StatusNodes(String namespace, String name) {
        return l2Statuses(namespace, name).stream()
                .map(s -> s.getAdditionalProperties().get("status") instanceof Map<?, ?> status
                                && ((Map<String, Object>) status).get("node") instanceof String node
                        ? node
                        : "?")
                .toList();
    }

    public static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Polls {@code condition} every 50 ms until it holds; fails after {@code timeout} naming what it waited for. */
    public static void poll(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    @Override
    public void close() {
        for (NamespacedProcess speaker : speakers.values()) {
            speaker.stop(Duration.ofSeconds(3));
        }
        stop(controller);
        endpointSlices.close();
        client.close();
        apiServer.close();
        network.close();
    }

    static void stop(Process process) {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

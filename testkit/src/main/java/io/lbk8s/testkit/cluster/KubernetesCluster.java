package io.lbk8s.testkit.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.Shell;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A real Kubernetes on the namespace network, built from source by {@code bin/kubernetes build}: the control plane on
 * the LAN's control-plane host ({@link ControlPlane}), and on every node containerd, the kubelet and kube-proxy
 * ({@link ClusterNode}), with the client namespace on the same LAN. The images are imported into every node's
 * containerd, as nothing can be pulled.
 *
 * <pre>{@code
 * try (KubernetesCluster cluster = KubernetesCluster.start(3, logs, List.of(lbk8sImage))) {
 *   cluster.kubectl(Duration.ofSeconds(30), "apply", "-f", "deploy/lbk8s.yaml");
 * }
 * }</pre>
 *
 * {@link #close()} (also run at JVM exit, so on Ctrl-C too) kills every process of every node, containers included,
 * unmounts what the kubelet and containerd mounted, removes the cgroups, the namespaces and the files.
 */
public final class KubernetesCluster implements AutoCloseable {

    private static final Duration NODES_READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Path CONTAINER_LOG_LINKS = Path.of("/var/log/containers");
    /** Where containerd's shims put their sockets, whatever containerd's own state directory. */
    private static final Path SHIM_SOCKETS = Path.of("/run/containerd/s");

    private final TestNetwork network;
    private final KubernetesBuild build;
    private final Path directory;
    private final ControlPlane controlPlane;
    private final List<ClusterNode> nodes = new CopyOnWriteArrayList<>();
    private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private KubernetesCluster(TestNetwork network, KubernetesBuild build, Path directory, ControlPlane controlPlane) {
        this.network = network;
        this.build = build;
        this.directory = directory;
        this.controlPlane = controlPlane;
        this.shutdownHook = Thread.ofPlatform().unstarted(() -> {
            try {
                close();
            } catch (RuntimeException e) {
                System.err.println("lbk8s test cluster: " + e.getMessage());
            }
        });
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Why a cluster cannot start here; empty when it can. */
    public static Optional<String> missingPrerequisites() {
        return KubernetesBuild.missingPrerequisites()
                .or(TestNetwork::missingPrerequisites)
                .or(Cgroups::missingPrerequisites);
    }

    /**
     * Starts a cluster of {@code nodeCount} nodes, with {@code images} (OCI or docker archives) besides the pause and
     * backend images in every node, and returns once every node is Ready. Logs go to {@code logDirectory}.
     */
    public static KubernetesCluster start(int nodeCount, Path logDirectory, List<Path> images) throws IOException {
        Optional<String> missing = missingPrerequisites();
        if (missing.isPresent()) {
            throw new IOException("cannot start a Kubernetes cluster: " + missing.get());
        }
        KubernetesBuild build = KubernetesBuild.find().orElseThrow();
        Files.createDirectories(logDirectory);
        TestNetwork network = TestNetwork.createBare(nodeCount, logDirectory);
        Path directory;
        KubernetesCluster cluster;
        try {
            directory = Files.createTempDirectory("lbk8s-cluster-" + network.id() + "-");
            ControlPlane controlPlane =
                    new ControlPlane(network, network.controlPlaneHost(), build, directory, logDirectory);
            cluster = new KubernetesCluster(network, build, directory, controlPlane);
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
        try {
            cluster.startAll(images);
            return cluster;
        } catch (IOException | RuntimeException e) {
            try {
                cluster.close();
            } catch (RuntimeException teardown) {
                e.addSuppressed(teardown);
            }
            throw e;
        }
    }

    private void startAll(List<Path> extraImages) throws IOException {
        Pki pki = Pki.create(directory.resolve("pki"));
        routePodNetworksFromControlPlane();
        controlPlane.start(pki);
        List<Path> images = new ArrayList<>(List.of(build.pauseImage(), build.backendImage()));
        images.addAll(extraImages);
        for (TestNode node : network.nodes()) {
            nodes.add(new ClusterNode(network, node, build, directory.resolve(node.name()), network.logDirectory()));
        }
        List<Thread> starts = new ArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        for (ClusterNode node : nodes) {
            starts.add(Thread.ofVirtual().start(() -> {
                try {
                    node.start(pki, controlPlane.server(), network.nodes(), network.controlPlaneHost(), images);
                } catch (IOException | RuntimeException e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread start : starts) {
            try {
                start.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while the nodes started", e);
            }
        }
        if (!failures.isEmpty()) {
            IOException failure = new IOException(
                    "a node did not start: " + failures.getFirst().getMessage(), failures.getFirst());
            failures.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
        awaitNodesReady();
    }

    /** Pods reach the API server from their own addresses (through the kubernetes Service): its replies go back. */
    private void routePodNetworksFromControlPlane() throws IOException {
        List<String> commands = new ArrayList<>();
        for (TestNode node : network.nodes()) {
            commands.add(
                    "route add " + PodNetwork.ipv4Cidr(node.number()) + " via " + ControlPlane.address(node.ipv4()));
            commands.add(
                    "route add " + PodNetwork.ipv6Cidr(node.number()) + " via " + ControlPlane.address(node.ipv6()));
        }
        Shell.check(
                Shell.SETUP_TIMEOUT,
                List.of("ip", "-n", network.controlPlaneHost().namespace(), "-batch", "-"),
                String.join("\n", commands) + "\n");
    }

    private void awaitNodesReady() throws IOException {
        long deadline = System.nanoTime() + NODES_READY_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            for (ClusterNode node : nodes) {
                for (NamespacedProcess process : node.processes()) {
                    if (!process.isAlive()) {
                        throw new IOException(
                                "a daemon of " + node.node().name() + " exited: see " + process.logFile());
                    }
                }
            }
            CommandResult result = kubectl(Duration.ofSeconds(10), "get", "nodes", "--no-headers");
            last = result.output().strip();
            long ready = last.lines()
                    .filter(l -> l.split("\\s+").length > 1 && l.split("\\s+")[1].equals("Ready"))
                    .count();
            if (result.ok() && ready == nodes.size()) {
                return;
            }
            ControlPlane.sleep(500);
        }
        throw new IOException("the nodes were not Ready within " + NODES_READY_TIMEOUT + ":\n" + last);
    }

    public TestNetwork network() {
        return network;
    }

    public KubernetesBuild build() {
        return build;
    }

    /** The cluster administrator's kubeconfig (system:masters), as kubeadm's admin.conf. */
    public Path kubeconfig() {
        return controlPlane.adminKubeconfig();
    }

    /** {@code https://198.18.X.5:6443}. */
    public String server() {
        return controlPlane.server();
    }

    /** The kubectl built with the cluster, as the administrator. */
    public CommandResult kubectl(Duration timeout, String... arguments) {
        List<String> command = new ArrayList<>(List.of(
                build.bin("kubectl").toString(), "--kubeconfig", kubeconfig().toString()));
        command.addAll(List.of(arguments));
        return Shell.run(timeout, command);
    }

    /**
     * A program that takes kubectl's {@code --kubeconfig} flag after its arguments (the lbk8s CLI), run with the
     * administrator's kubeconfig, as a user runs it against this cluster.
     */
    public CommandResult runAsAdministrator(Path program, Duration timeout, String... arguments) {
        List<String> command = new ArrayList<>(List.of(program.toString()));
        command.addAll(List.of(arguments));
        command.addAll(List.of("--kubeconfig", kubeconfig().toString()));
        return Shell.run(timeout, command);
    }

    /** {@code kubectl apply -f -} of this YAML, as the administrator. */
    public CommandResult apply(String yaml) {
        return Shell.run(
                Duration.ofMinutes(2),
                List.of(
                        build.bin("kubectl").toString(),
                        "--kubeconfig",
                        kubeconfig().toString(),
                        "apply",
                        "-f",
                        "-"),
                yaml);
    }

    /** A fabric8 client as the administrator; closed with the cluster. */
    public KubernetesClient client() {
        try {
            KubernetesClient client = new KubernetesClientBuilder()
                    .withConfig(Pki.fabric8Config(kubeconfig()))
                    .build();
            clients.add(client);
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Imports an image archive into every node's containerd. */
    public void importImage(Path archive) throws IOException {
        for (ClusterNode node : nodes) {
            node.ctr("images", "import", archive.toString());
        }
    }

    /** The node's eth0 down, as a cable pulled ({@link TestNetwork#linkDown}); the kernel drops its routes. */
    public void linkDown(TestNode node) {
        network.linkDown(node);
    }

    /** The node's eth0 up again, and its routes back, as its network manager would put them. */
    public void linkUp(TestNode node) throws IOException {
        network.linkUp(node);
        clusterNode(node).restoreRoutes();
    }

    /** Stops every process of the node at once, Pods, kubelet and containerd included (cgroup freezer). */
    public void freeze(TestNode node) throws IOException {
        clusterNode(node).cgroups().freeze();
    }

    public void thaw(TestNode node) throws IOException {
        clusterNode(node).cgroups().thaw();
    }

    /** For {@link #backendDeployment}: at most one of its Pods per node, so that 3 replicas on 3 nodes are one each. */
    public static String onePodPerNode(String app) {
        return "affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "
                + "{matchLabels: {app: " + app + "}}, topologyKey: kubernetes.io/hostname}]}}";
    }

    /**
     * A Deployment of the backend image in namespace default, whose Pods answer {@code GET /} on port 8080 with "POD
     * on NODE" and pass the restricted Pod Security level; {@code podSpec} is a line of the Pod's spec in flow style
     * (e.g. a nodeSelector), or empty.
     */
    public static String backendDeployment(String name, int replicas, String podSpec) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %1$s, namespace: default}
                spec:
                  replicas: %2$d
                  selector: {matchLabels: {app: %1$s}}
                  template:
                    metadata: {labels: {app: %1$s}}
                    spec:
                      %3$s
                      containers:
                      - name: web
                        image: lbk8s.test/backend:1
                        imagePullPolicy: Never
                        env:
                        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
                        - {name: NODE_NAME, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
                        ports: [{containerPort: 8080}]
                        readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
                        securityContext:
                          allowPrivilegeEscalation: false
                          runAsNonRoot: true
                          runAsUser: 65534
                          capabilities: {drop: [ALL]}
                          seccompProfile: {type: RuntimeDefault}
                """.formatted(name, replicas, podSpec);
    }

    /**
     * SIGKILL to the process of a Pod's container whose command line contains {@code commandPart}, found by its
     * HOSTNAME (the Pod's name), as a crash of that process alone: the kubelet restarts the container; the pid.
     */
    public long killContainerProcess(String pod, String commandPart) throws IOException {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path proc : processes
                    .filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                try {
                    String command = Files.readString(proc.resolve("cmdline")).replace('\0', ' ');
                    String environment =
                            Files.readString(proc.resolve("environ")).replace('\0', '\n');
                    if (command.contains(commandPart) && environment.lines().anyMatch(("HOSTNAME=" + pod)::equals)) {
                        long pid = Long.parseLong(proc.getFileName().toString());
                        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                        return pid;
                    }
                } catch (IOException gone) {
                    // ended while listed
                }
            }
        }
        throw new IOException("no process of Pod " + pod + " runs `" + commandPart + "`");
    }

    /** The node's folder: its kubelet's {@code pod-logs/} (every container's log), its configuration files. */
    public Path nodeDirectory(TestNode node) {
        return clusterNode(node).directory();
    }

    private ClusterNode clusterNode(TestNode node) {
        return nodes.stream().filter(n -> n.node().equals(node)).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | SecurityException alreadyShuttingDown) {
            // running from the hook itself
        }
        clients.forEach(KubernetesClient::close);
        List<String> problems = new ArrayList<>();
        for (ClusterNode node : nodes) {
            try {
                node.cgroups().killAll();
            } catch (IOException | RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        for (ClusterNode node : nodes) {
            try {
                for (Path socket : node.shimSockets()) {
                    Files.deleteIfExists(socket);
                }
            } catch (IOException | RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        try {
            unmountEverythingUnder(directory);
        } catch (IOException | RuntimeException e) {
            problems.add(e.getMessage());
        }
        for (ClusterNode node : nodes) {
            try {
                node.cgroups().remove();
            } catch (IOException | RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        try {
            network.close();
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
        }
        removeContainerLogLinks();
        keepPodLogs();
        TempFiles.deleteRecursively(directory);
        removeIfEmpty(SHIM_SOCKETS);
        removeIfEmpty(SHIM_SOCKETS.getParent());
        if (!problems.isEmpty()) {
            throw new IllegalStateException(
                    "test cluster " + network.id() + " left behind: " + String.join("; ", problems));
        }
    }

    /** The kubelet's volumes, containerd's root file systems and Pod network namespaces, deepest first. */
    private static void unmountEverythingUnder(Path directory) throws IOException {
        String prefix = directory.toAbsolutePath() + "/";
        for (int round = 0; round < 3; round++) {
            List<String> mounts;
            try (Stream<String> lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
                mounts = lines.map(line -> line.split(" ")[4].replace("\\040", " "))
                        .filter(point -> point.startsWith(prefix))
                        .distinct()
                        .sorted(Comparator.comparingInt(String::length).reversed())
                        .toList();
            }
            if (mounts.isEmpty()) {
                return;
            }
            for (String mount : mounts) {
                Shell.run(Shell.SETUP_TIMEOUT, List.of("umount", "--lazy", mount));
            }
        }
        throw new IOException("mounts under " + directory + " outlived umount");
    }

    /** Every container's log, as the kubelet wrote it, goes to the log directory: {@code <node>-pods/}. */
    private void keepPodLogs() {
        for (ClusterNode node : nodes) {
            Path from = node.directory().resolve("pod-logs");
            Path to = network.logDirectory().resolve(node.node().name() + "-pods");
            if (!Files.isDirectory(from)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(from)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    Path target = to.resolve(from.relativize(file).toString());
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                System.err.println("lbk8s test cluster: could not keep the Pods' logs of "
                        + node.node().name() + ": " + e.getMessage());
            }
        }
    }

    private static void removeIfEmpty(Path directory) {
        try {
            Files.deleteIfExists(directory);
        } catch (IOException notEmpty) {
            // another cluster's, or a real containerd's: not ours to remove
        }
    }

    /** The kubelet links every container's log into /var/log/containers: those of this cluster go with it. */
    private void removeContainerLogLinks() {
        if (!Files.isDirectory(CONTAINER_LOG_LINKS)) {
            return;
        }
        try (Stream<Path> links = Files.list(CONTAINER_LOG_LINKS)) {
            for (Path link : links.filter(Files::isSymbolicLink).toList()) {
                if (Files.readSymbolicLink(link).startsWith(directory)) {
                    Files.deleteIfExists(link);
                }
            }
        } catch (IOException e) {
            System.err.println("lbk8s test cluster: " + CONTAINER_LOG_LINKS + ": " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "test cluster " + network.id() + " (" + nodes.size() + " nodes, " + server() + ")";
    }
}

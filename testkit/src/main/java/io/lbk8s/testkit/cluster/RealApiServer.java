package io.lbk8s.testkit.cluster;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.Shell;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * etcd and kube-apiserver alone, as processes on loopback, for API-level tests: what envtest starts, set as the
 * cluster's control plane is ({@link ApiServerCommands}). Needs no root and no network namespace, only
 * {@code bin/kubernetes build}. {@link #shared()} starts one per JVM, stopped at its exit; tests that share it keep
 * to their own namespaces and names, as on any real cluster.
 */
public final class RealApiServer implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static RealApiServer shared;

    private final KubernetesBuild build;
    private final Path directory;
    private final List<Process> processes = new ArrayList<>();
    private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
    private Path kubeconfig;
    private Path wipeKubeconfig;
    private String url;

    private RealApiServer(KubernetesBuild build, Path directory) {
        this.build = build;
        this.directory = directory;
    }

    /** Why it cannot start here; empty when it can. */
    public static Optional<String> missingPrerequisites() {
        return KubernetesBuild.missingPrerequisites();
    }

    /** The JVM's one real API server, started on the first call and stopped when the JVM exits. */
    public static synchronized RealApiServer shared() throws IOException {
        if (shared == null) {
            RealApiServer started = start();
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(started::close));
            shared = started;
        }
        return shared;
    }

    /** A new one on loopback, with its own etcd; {@link #close()} stops both and removes their files. */
    public static RealApiServer start() throws IOException {
        return start("127.0.0.1");
    }

    /**
     * A new one serving on {@code address}, an address of this host (a test network's, say, for processes in its
     * namespaces). Its processes stop with this JVM however it ends.
     */
    public static RealApiServer start(String address) throws IOException {
        KubernetesBuild build = KubernetesBuild.find()
                .orElseThrow(() -> new IOException("cannot start kube-apiserver: "
                        + KubernetesBuild.missingPrerequisites().orElse("")));
        RealApiServer server = new RealApiServer(build, Files.createTempDirectory("lbk8s-apiserver-"));
        try {
            server.startProcesses(address);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void startProcesses(String address) throws IOException {
        Pki pki = Pki.create(directory.resolve("pki"));
        int port = freePort();
        int etcdClient = freePort();
        int etcdPeer = freePort();
        url = "https://" + address + ":" + port;
        Pki.Credential serving = pki.server(
                "apiserver",
                "kube-apiserver",
                List.of(address, "127.0.0.1", PodNetwork.API_SERVICE_IP).stream()
                        .distinct()
                        .toList(),
                List.of("localhost"));
        Pki.Credential kubeletClient =
                pki.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters");
        kubeconfig = pki.kubeconfig("admin", url, pki.client("admin", "kubernetes-admin", "system:masters"));
        wipeKubeconfig = pki.kubeconfig("wipe", url, pki.client("wipe", AuditLog.QUIET_USER, "system:masters"));
        Path controllerManager = pki.kubeconfig(
                "controller-manager",
                url,
                pki.client("controller-manager", "system:kube-controller-manager", "system:masters"));
        Path admission = ApiServerCommands.writeAdmission(directory);
        start("etcd", ApiServerCommands.etcd(build, directory.resolve("etcd"), etcdClient, etcdPeer));
        List<String> apiServer = new ArrayList<>(
                ApiServerCommands.apiServer(build, pki, serving, kubeletClient, admission, address, port, etcdClient));
        apiServer.addAll(AuditLog.flags(directory));
        // The kubernetes Service's endpoints are the test's to write (an API server on a kind node's address, say):
        // this one's own reconciler would put back 127.0.0.1.
        apiServer.add("--endpoint-reconciler-type=none");
        start("kube-apiserver", apiServer);
        awaitReady();
        // Only the controllers a test of lbk8s meets: a deleted namespace goes once emptied, dependents go with their
        // owners, and each namespace gets its default ServiceAccount (without which no Pod is admitted). No kubelet
        // or scheduler: Pods stay as a test writes them.
        start(
                "kube-controller-manager",
                List.of(
                        build.bin("kube-controller-manager").toString(),
                        "--kubeconfig",
                        controllerManager.toString(),
                        "--controllers",
                        "namespace,garbagecollector,serviceaccount",
                        "--leader-elect=false",
                        "--secure-port=0",
                        "--v=1"));
    }

    private void start(String name, List<String> command) throws IOException {
        List<String> diesWithThisJvm = new ArrayList<>(List.of("/bin/bash", "-c", Shell.DIES_WITH_STDIN, name));
        diesWithThisJvm.addAll(command);
        processes.add(new ProcessBuilder(diesWithThisJvm)
                .redirectErrorStream(true)
                .redirectOutput(
                        Redirect.appendTo(directory.resolve(name + ".log").toFile()))
                .start());
    }

    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            for (Process process : processes) {
                if (!process.isAlive()) {
                    throw new IOException(process.info().command().orElse("a process") + " exited: see " + directory);
                }
            }
            CommandResult ready = kubectl(Duration.ofSeconds(10), "get", "--raw", "/readyz");
            if (ready.ok() && ready.stdout().strip().equals("ok")) {
                return;
            }
            last = ready.output().strip();
            ControlPlane.sleep(200);
        }
        throw new IOException("kube-apiserver not ready within " + READY_TIMEOUT + ": " + last);
    }

    /**
     * Every request served since the server started, in order, from its audit log (who, verb, path, response code):
     * what a test counts and checks for refusals.
     */
    public List<AuditLog.Request> requests() {
        return AuditLog.read(directory, 0);
    }

    /** Where the audit log ends now, for {@link #requestsAfter(long)}. */
    long auditEnd() {
        return AuditLog.end(directory);
    }

    /** The requests served after {@code auditEnd} was taken. */
    List<AuditLog.Request> requestsAfter(long auditEnd) {
        return AuditLog.read(directory, auditEnd);
    }

    /**
     * Deletes what tests made (every object outside the system namespaces, the namespaces themselves, the CRDs, the
     * cluster-scoped objects not created by the server) and waits until it is gone: the next test starts on an empty
     * cluster, as a fresh envtest does. Of the CRDs, those in {@code keep} stay if unchanged (their objects go).
     */
    public void empty(List<CustomResourceDefinition> keep) {
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(Pki.fabric8Config(wipeKubeconfig))
                .build()) {
            new ClusterWipe(client, keep).run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies the logs of etcd, kube-apiserver and kube-controller-manager (not the audit log) into {@code folder}. */
    public void copyLogsTo(Path folder) {
        try (var files = Files.list(directory)) {
            for (Path log : files.filter(f -> f.toString().endsWith(".log"))
                    .filter(f -> !f.equals(AuditLog.file(directory)))
                    .toList()) {
                Files.copy(log, folder.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code https://127.0.0.1:PORT}. */
    public String url() {
        return url;
    }

    /** The administrator's kubeconfig (system:masters). */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** A fabric8 client as the administrator; closed with the server. */
    public KubernetesClient newClient() {
        try {
            KubernetesClient client = new KubernetesClientBuilder()
                    .withConfig(Pki.fabric8Config(kubeconfig))
                    .build();
            clients.add(client);
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The kubectl built with it, as the administrator. */
    public CommandResult kubectl(Duration timeout, String... arguments) {
        List<String> command =
                new ArrayList<>(List.of(build.bin("kubectl").toString(), "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(arguments));
        return Shell.run(timeout, command);
    }

    /** Applies every CRD under {@code directory} and waits until each is served. */
    public void applyCrds(Path crds) throws IOException {
        for (String[] step : List.of(
                new String[] {"apply", "--server-side", "-f", crds.toString()},
                new String[] {"wait", "--for", "condition=Established", "--timeout", "60s", "-f", crds.toString()})) {
            CommandResult result = kubectl(Duration.ofSeconds(90), step);
            if (!result.ok()) {
                throw new IOException("kubectl " + String.join(" ", step) + ": " + result.output());
            }
        }
    }

    @Override
    public void close() {
        clients.forEach(KubernetesClient::close);
        for (Process process : processes.reversed()) {
            process.destroy();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        TempFiles.deleteRecursively(directory);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

package io.lbk8s.testkit.cluster;

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

    /** A new one, with its own etcd; {@link #close()} stops both and removes their files. */
    public static RealApiServer start() throws IOException {
        KubernetesBuild build = KubernetesBuild.find()
                .orElseThrow(() -> new IOException("cannot start kube-apiserver: "
                        + KubernetesBuild.missingPrerequisites().orElse("")));
        RealApiServer server = new RealApiServer(build, Files.createTempDirectory("lbk8s-apiserver-"));
        try {
            server.startProcesses();
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void startProcesses() throws IOException {
        Pki pki = Pki.create(directory.resolve("pki"));
        int port = freePort();
        int etcdClient = freePort();
        int etcdPeer = freePort();
        url = "https://127.0.0.1:" + port;
        Pki.Credential serving = pki.server(
                "apiserver", "kube-apiserver", List.of("127.0.0.1", PodNetwork.API_SERVICE_IP), List.of("localhost"));
        Pki.Credential kubeletClient =
                pki.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters");
        kubeconfig = pki.kubeconfig("admin", url, pki.client("admin", "kubernetes-admin", "system:masters"));
        Path admission = ApiServerCommands.writeAdmission(directory);
        start("etcd", ApiServerCommands.etcd(build, directory.resolve("etcd"), etcdClient, etcdPeer));
        start(
                "kube-apiserver",
                ApiServerCommands.apiServer(
                        build, pki, serving, kubeletClient, admission, "127.0.0.1", port, etcdClient));
        awaitReady();
    }

    private void start(String name, List<String> command) throws IOException {
        processes.add(new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(
                        Redirect.appendTo(directory.resolve(name + ".log").toFile()))
                .redirectInput(Redirect.from(new java.io.File("/dev/null")))
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

package io.lbk8s.testkit.cluster;

import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.Shell;
import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * etcd, kube-apiserver, kube-controller-manager and kube-scheduler on the control-plane host of the LAN, set as a
 * kubeadm or Talos cluster sets them: TLS everywhere but etcd (loopback of its own namespace), the Node and RBAC
 * authorizers, ServiceAccount tokens, and Pod Security admission enforcing {@code baseline} by default, auditing and
 * warning {@code restricted}, with kube-system exempt (Talos's defaults).
 */
final class ControlPlane {

    static final int API_PORT = 6443;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final TestNetwork network;
    private final TestClient host;
    private final KubernetesBuild build;
    private final Path directory;
    private final Path logs;
    private final List<NamespacedProcess> processes = new ArrayList<>();
    private Path adminKubeconfig;

    ControlPlane(TestNetwork network, TestClient host, KubernetesBuild build, Path directory, Path logs) {
        this.network = network;
        this.host = host;
        this.build = build;
        this.directory = directory;
        this.logs = logs;
    }

    String server() {
        return "https://" + address(host.ipv4()) + ":" + API_PORT;
    }

    Path adminKubeconfig() {
        return adminKubeconfig;
    }

    void start(Pki pki) throws IOException {
        String ip = address(host.ipv4());
        Pki.Credential serving = pki.server(
                "apiserver",
                "kube-apiserver",
                List.of(ip, address(host.ipv6()), PodNetwork.API_SERVICE_IP, "127.0.0.1"),
                List.of(
                        "kubernetes",
                        "kubernetes.default",
                        "kubernetes.default.svc",
                        "kubernetes.default.svc.cluster.local",
                        "localhost"));
        Pki.Credential kubeletClient =
                pki.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters");
        adminKubeconfig = pki.kubeconfig("admin", server(), pki.client("admin", "kubernetes-admin", "system:masters"));
        Path controllerManager = pki.kubeconfig(
                "controller-manager", server(), pki.client("controller-manager", "system:kube-controller-manager"));
        Path scheduler = pki.kubeconfig("scheduler", server(), pki.client("scheduler", "system:kube-scheduler"));
        Path admission = ApiServerCommands.writeAdmission(directory);
        start("etcd", ApiServerCommands.etcd(build, directory.resolve("etcd"), 2379, 2380));
        List<String> apiServer = new ArrayList<>(
                ApiServerCommands.apiServer(build, pki, serving, kubeletClient, admission, ip, API_PORT, 2379));
        apiServer.addAll(List.of(
                "--advertise-address",
                ip,
                // the nodes' names are in no DNS: the API server reaches each kubelet at its address
                "--kubelet-preferred-address-types",
                "InternalIP"));
        start("kube-apiserver", apiServer);
        awaitApiServer();
        start(
                "kube-controller-manager",
                List.of(
                        build.bin("kube-controller-manager").toString(),
                        "--kubeconfig",
                        controllerManager.toString(),
                        "--authentication-kubeconfig",
                        controllerManager.toString(),
                        "--authorization-kubeconfig",
                        controllerManager.toString(),
                        "--bind-address",
                        "127.0.0.1",
                        "--leader-elect=false",
                        "--use-service-account-credentials=true",
                        "--service-account-private-key-file",
                        pki.serviceAccountKey().toString(),
                        "--root-ca-file",
                        pki.ca().certificate().toString(),
                        "--cluster-cidr",
                        PodNetwork.CLUSTER_CIDRS,
                        "--service-cluster-ip-range",
                        PodNetwork.SERVICE_CIDRS,
                        "--allocate-node-cidrs=false",
                        "--profiling=false",
                        "--v=1"));
        start(
                "kube-scheduler",
                List.of(
                        build.bin("kube-scheduler").toString(),
                        "--kubeconfig",
                        scheduler.toString(),
                        "--authentication-kubeconfig",
                        scheduler.toString(),
                        "--authorization-kubeconfig",
                        scheduler.toString(),
                        "--bind-address",
                        "127.0.0.1",
                        "--leader-elect=false",
                        "--profiling=false",
                        "--v=1"));
    }

    private void start(String name, List<String> command) {
        processes.add(network.start(host.namespace(), command, logs.resolve(name + ".log")));
    }

    /** Until {@code /readyz} answers ok to the admin, from this machine over the LAN as every client reaches it. */
    private void awaitApiServer() throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            for (NamespacedProcess process : processes) {
                if (!process.isAlive()) {
                    throw new IOException(process.command().getFirst() + " exited: see " + process.logFile());
                }
            }
            CommandResult result = Shell.run(
                    Duration.ofSeconds(10),
                    List.of(
                            build.bin("kubectl").toString(),
                            "--kubeconfig",
                            adminKubeconfig.toString(),
                            "get",
                            "--raw",
                            "/readyz"));
            if (result.ok() && result.stdout().strip().equals("ok")) {
                return;
            }
            last = result.output().strip();
            sleep(250);
        }
        throw new IOException("kube-apiserver not ready within " + READY_TIMEOUT + ": " + last);
    }

    List<NamespacedProcess> processes() {
        return List.copyOf(processes);
    }

    static String address(InetAddress address) {
        String text = address.getHostAddress();
        int zone = text.indexOf('%');
        return zone < 0 ? text : text.substring(0, zone);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

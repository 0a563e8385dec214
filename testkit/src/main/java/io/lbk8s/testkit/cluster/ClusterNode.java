package io.lbk8s.testkit.cluster;

import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.Shell;
import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of the cluster: containerd (with runc and the CNI bridge), the kubelet and kube-proxy (nftables mode), all
 * in the node's network namespace, as a machine on the LAN. They share the machine's mount namespace, as on a real
 * node, so that the kubelet's volume mounts are the ones containerd gives the containers; hostNetwork Pods get the
 * node's eth0. Every process of the node, Pods included, is in the node's cgroups ({@link Cgroups}).
 */
final class ClusterNode {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    private final TestNetwork network;
    private final TestNode node;
    private final KubernetesBuild build;
    private final Path directory;
    private final Path logs;
    private final Cgroups cgroups;
    private final List<NamespacedProcess> processes = new ArrayList<>();
    private final List<String> routes = new ArrayList<>();

    ClusterNode(TestNetwork network, TestNode node, KubernetesBuild build, Path directory, Path logs) {
        this.network = network;
        this.node = node;
        this.build = build;
        this.directory = directory;
        this.logs = logs;
        this.cgroups = new Cgroups(node.namespace());
    }

    TestNode node() {
        return node;
    }

    Cgroups cgroups() {
        return cgroups;
    }

    Path directory() {
        return directory;
    }

    /** Starts containerd and imports the images, then the kubelet and kube-proxy; does not wait for Ready. */
    void start(Pki pki, String server, List<TestNode> all, TestClient gateway, List<Path> images) throws IOException {
        Files.createDirectories(directory);
        cgroups.create();
        route(all, gateway);
        Path containerdConfig = writeContainerdConfig();
        writeCniConfig();
        start("containerd", List.of(build.bin("containerd").toString(), "--config", containerdConfig.toString()));
        awaitContainerd();
        for (Path image : images) {
            ctr("images", "import", image.toString());
        }
        Path kubeconfig = pki.kubeconfig(
                node.name(), server, pki.client(node.name(), "system:node:" + node.name(), "system:nodes"));
        Path proxyKubeconfig = pki.kubeconfig(
                "kube-proxy-" + node.name(), server, pki.client("kube-proxy-" + node.name(), "system:kube-proxy"));
        start(
                "kubelet",
                List.of(
                        build.bin("kubelet").toString(),
                        "--config",
                        writeKubeletConfig(pki).toString(),
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--hostname-override",
                        node.name(),
                        "--node-ip",
                        ControlPlane.address(node.ipv4()) + "," + ControlPlane.address(node.ipv6()),
                        "--root-dir",
                        directory.resolve("kubelet").toString(),
                        "--cert-dir",
                        directory.resolve("kubelet-pki").toString(),
                        "--v=1"));
        start(
                "kube-proxy",
                List.of(
                        build.bin("kube-proxy").toString(),
                        "--config",
                        writeKubeProxyConfig(proxyKubeconfig).toString(),
                        "--v=1"));
    }

    /**
     * Each other node's Pod ranges through that node, as routes a cluster's network plugin would install; and the
     * Service ranges through the LAN's gateway (the control-plane host), as a node's default route would take them:
     * the kernel routes a connection to a ClusterIP before kube-proxy's rule rewrites it, so without a route it fails
     * with "Network is unreachable". Nothing else gets a route: the gateway routes nowhere.
     */
    private void route(List<TestNode> all, TestClient gateway) throws IOException {
        routes.clear();
        List<String> commands = routes;
        for (String range : PodNetwork.SERVICE_CIDRS.split(",")) {
            commands.add("route replace " + range + " via "
                    + ControlPlane.address(range.contains(":") ? gateway.ipv6() : gateway.ipv4()));
        }
        for (TestNode other : all) {
            if (other.equals(node)) {
                continue;
            }
            commands.add("route replace " + PodNetwork.ipv4Cidr(other.number()) + " via "
                    + ControlPlane.address(other.ipv4()));
            commands.add("route replace " + PodNetwork.ipv6Cidr(other.number()) + " via "
                    + ControlPlane.address(other.ipv6()));
        }
        restoreRoutes();
        Shell.check(
                Shell.SETUP_TIMEOUT,
                Shell.inNamespace(
                        node.namespace(),
                        List.of("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")));
    }

    /**
     * The routes again: taking eth0 down removes every route through it, and a real node's network manager puts them
     * back when the link returns.
     */
    void restoreRoutes() throws IOException {
        Shell.check(
                Shell.SETUP_TIMEOUT,
                List.of("ip", "-n", node.namespace(), "-batch", "-"),
                String.join("\n", routes) + "\n");
    }

    private Path writeContainerdConfig() throws IOException {
        Path state = directory.resolve("containerd");
        Path config = directory.resolve("containerd.toml");
        Files.writeString(config, """
                version = 3
                root = "%1$s/root"
                state = "%1$s/state"
                disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.tracing.processor.v1.otlp"]

                [grpc]
                  address = "%1$s/containerd.sock"

                [ttrpc]
                  address = "%1$s/containerd.sock.ttrpc"

                [plugins."io.containerd.internal.v1.opt"]
                  path = "%1$s/opt"

                [plugins."io.containerd.cri.v1.images"]
                  snapshotter = "overlayfs"
                  [plugins."io.containerd.cri.v1.images".pinned_images]
                    sandbox = "%2$s"

                [plugins."io.containerd.cri.v1.runtime"]
                  netns_mounts_under_state_dir = true
                  # CAP_SYS_RESOURCE is not ours on these machines: ask for no lower OOM score than we have
                  restrict_oom_score_adj = true
                  enable_selinux = false
                  [plugins."io.containerd.cri.v1.runtime".containerd]
                    default_runtime_name = "runc"
                    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
                      runtime_type = "io.containerd.runc.v2"
                      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
                        BinaryName = "%3$s"
                        Root = "%1$s/runc"
                        SystemdCgroup = false
                  [plugins."io.containerd.cri.v1.runtime".cni]
                    bin_dirs = ["%4$s"]
                    conf_dir = "%5$s"

                [plugins."io.containerd.grpc.v1.cri"]
                  stream_server_address = "127.0.0.1"
                """.formatted(
                        state, build.pauseImageName(), build.bin("runc"), build.cni(), directory.resolve("cni")));
        return config;
    }

    /** The CNI bridge with host-local addresses from this node's Pod ranges, as kubenet would set it. */
    private void writeCniConfig() throws IOException {
        Files.createDirectories(directory.resolve("cni"));
        Files.writeString(directory.resolve("cni/10-pods.conflist"), """
                {
                  "cniVersion": "1.0.0",
                  "name": "lbk8s-pods",
                  "plugins": [
                    {
                      "type": "bridge",
                      "bridge": "cni0",
                      "isGateway": true,
                      "ipMasq": false,
                      "hairpinMode": true,
                      "ipam": {
                        "type": "host-local",
                        "dataDir": "%s",
                        "ranges": [[{"subnet": "%s"}], [{"subnet": "%s"}]],
                        "routes": [{"dst": "0.0.0.0/0"}, {"dst": "::/0"}]
                      }
                    },
                    {"type": "portmap", "capabilities": {"portMappings": true}}
                  ]
                }
                """.formatted(
                directory.resolve("cni-ipam"), PodNetwork.ipv4Cidr(node.number()), PodNetwork.ipv6Cidr(node.number())));
    }

    private Path writeKubeletConfig(Pki pki) throws IOException {
        Path config = directory.resolve("kubelet.yaml");
        Files.writeString(config, """
                apiVersion: kubelet.config.k8s.io/v1beta1
                kind: KubeletConfiguration
                authentication:
                  anonymous: {enabled: false}
                  webhook: {enabled: true}
                  x509: {clientCAFile: "%1$s"}
                authorization: {mode: Webhook}
                cgroupDriver: cgroupfs
                cgroupRoot: "%2$s"
                cgroupsPerQOS: true
                containerRuntimeEndpoint: "unix://%3$s/containerd/containerd.sock"
                failSwapOn: false
                port: 10250
                readOnlyPort: 0
                healthzBindAddress: 127.0.0.1
                healthzPort: 10248
                podLogsDir: "%3$s/pod-logs"
                resolvConf: ""
                clusterDomain: cluster.local
                serializeImagePulls: false
                imageGCHighThresholdPercent: 100
                imageGCLowThresholdPercent: 99
                evictionHard: {memory.available: "1%%", nodefs.available: "1%%", imagefs.available: "1%%"}
                maxPods: 60
                rotateCertificates: false
                enforceNodeAllocatable: [pods]
                registerNode: true
                """.formatted(pki.ca().certificate(), cgroups.root(), directory));
        return config;
    }

    private Path writeKubeProxyConfig(Path kubeconfig) throws IOException {
        Path config = directory.resolve("kube-proxy.yaml");
        Files.writeString(config, """
                apiVersion: kubeproxy.config.k8s.io/v1alpha1
                kind: KubeProxyConfiguration
                mode: nftables
                clientConnection: {kubeconfig: "%s"}
                hostnameOverride: %s
                clusterCIDR: "%s"
                metricsBindAddress: 127.0.0.1:10249
                healthzBindAddress: 0.0.0.0:10256
                conntrack:
                  maxPerCore: 0
                  min: 0
                  tcpEstablishedTimeout: 0s
                  tcpCloseWaitTimeout: 0s
                """.formatted(kubeconfig, node.name(), PodNetwork.CLUSTER_CIDRS));
        return config;
    }

    /**
     * {@code ip netns exec} puts the command in a mount namespace of its own; nsenter takes it back to this machine's,
     * which the node's daemons must share. The shell joins the node's cgroups, then execs the daemon.
     */
    private void start(String name, List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of(
                "nsenter",
                "--mount=/proc/" + ProcessHandle.current().pid() + "/ns/mnt",
                "--",
                "sh",
                "-c",
                cgroups.enterDaemons() + "exec env PATH=\"$0:$PATH\" \"$@\"",
                build.binDirectory().toString()));
        wrapped.addAll(command);
        processes.add(network.start(node.namespace(), wrapped, logs.resolve(node.name() + "-" + name + ".log")));
    }

    private void awaitContainerd() throws IOException {
        long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
        while (true) {
            if (ctrRun("version").ok()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("containerd of " + node.name() + " did not answer within " + COMMAND_TIMEOUT);
            }
            ControlPlane.sleep(100);
        }
    }

    /** {@code ctr -n k8s.io ...} against this node's containerd. */
    String ctr(String... arguments) throws IOException {
        CommandResult result = ctrRun(arguments);
        if (!result.ok()) {
            throw new IOException("ctr " + String.join(" ", arguments) + " on " + node.name() + ": "
                    + result.output().strip());
        }
        return result.stdout();
    }

    private CommandResult ctrRun(String... arguments) {
        List<String> command = new ArrayList<>(List.of(
                build.bin("ctr").toString(),
                "--address",
                directory.resolve("containerd/containerd.sock").toString(),
                "-n",
                "k8s.io"));
        command.addAll(List.of(arguments));
        return Shell.run(COMMAND_TIMEOUT, command);
    }

    private static final java.util.regex.Pattern SHIM_ADDRESS = java.util.regex.Pattern.compile("unix://([^\"\\s]+)");

    /**
     * The sockets of this node's shims: containerd puts them in /run/containerd/s whatever its state directory, and a
     * killed shim leaves its socket there. Each task's {@code bootstrap.json} (or older {@code address}) names it.
     */
    List<Path> shimSockets() throws IOException {
        Path tasks = directory.resolve("containerd/state/io.containerd.runtime.v2.task");
        if (!Files.isDirectory(tasks)) {
            return List.of();
        }
        List<Path> sockets = new ArrayList<>();
        try (var files = Files.walk(tasks, 3)) {
            for (Path file : files.filter(p -> p.getFileName().toString().matches("bootstrap\\.json|address"))
                    .toList()) {
                var m = SHIM_ADDRESS.matcher(Files.readString(file));
                while (m.find()) {
                    sockets.add(Path.of(m.group(1)));
                }
            }
        }
        return sockets;
    }

    List<NamespacedProcess> processes() {
        return List.copyOf(processes);
    }
}

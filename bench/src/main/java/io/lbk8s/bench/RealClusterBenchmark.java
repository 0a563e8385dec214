package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.testkit.cluster.KubernetesCluster;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.Shell;
import io.lbk8s.testkit.net.TestNode;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * lbk8s on a real Kubernetes built here (testkit's {@link KubernetesCluster}: kube-apiserver, etcd, the kubelet,
 * containerd and kube-proxy on the namespace network), installed with {@code lbk8s install} from the distribution
 * (not a test): the cluster's start, Service created → address in status → first curl answered through kube-proxy,
 * a leading node's death (link down, every process frozen) → the client answered by another node, the leading
 * controller killed -9 → the next Service assigned, and the Pods' memory as the kubelet reports it (working set, from
 * its resource metrics) idle and with 1,000 Services. Prints markdown table rows.
 *
 * <p>Usage: {@code RealClusterBenchmark DIST_DIR IMAGE_TAR [--quick]} (needs root and bin/kubernetes build's
 * {@code LBK8S_KUBERNETES}).
 */
public final class RealClusterBenchmark {

    private static final Pattern BACKEND = Pattern.compile("^\\S+ on (node-\\d+)$");
    private static final Pattern WORKING_SET = Pattern.compile(
            "^container_memory_working_set_bytes\\{container=\"(\\w+)\",namespace=\"lbk8s-system\",pod=\"([^\"]+)\"} (\\S+)");

    private final KubernetesCluster cluster;
    private final KubernetesClient client;
    private final Path cli;

    private RealClusterBenchmark(KubernetesCluster cluster, Path cli) {
        this.cluster = cluster;
        this.client = cluster.client();
        this.cli = cli;
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args[0]);
        Path image = Path.of(args[1]);
        boolean quick = Arrays.asList(args).contains("--quick");
        int services = quick ? 20 : 100;
        int deaths = quick ? 3 : 20;
        int kills = quick ? 2 : 5;
        int scale = quick ? 200 : 1000;
        Path logs = Files.createTempDirectory("lbk8s-real-cluster-bench-");
        try {
            long started = System.nanoTime();
            try (KubernetesCluster cluster = KubernetesCluster.start(3, logs, List.of(image))) {
                row(
                        "cluster start (warm build: network, control plane, 3 nodes Ready, images imported)",
                        ms(since(started)));
                RealClusterBenchmark bench = new RealClusterBenchmark(cluster, dist.resolve("bin/lbk8s"));
                bench.run(services, deaths, kills, scale);
            }
        } finally {
            Shell.run(Duration.ofSeconds(30), List.of("rm", "-rf", logs.toString())); // also when a figure failed
        }
    }

    private void run(int services, int deaths, int kills, int scale) throws Exception {
        long installStarted = System.nanoTime();
        CommandResult install = lbk8s(Duration.ofMinutes(5), "install", "--wait", "--timeout", "4m");
        if (!install.ok()) {
            throw new IllegalStateException("lbk8s install failed: " + install.output());
        }
        row("lbk8s install --wait (controllers and speakers Ready)", ms(since(installStarted)));
        // the backend on every node, so that with eTP Local the answering node is the announcing one
        apply(KubernetesCluster.backendDeployment("web", 3, KubernetesCluster.onePodPerNode("web")));
        kubectl("rollout", "status", "deployment/web", "--timeout=120s");
        Thread.sleep(20_000); // the roles settle before their memory is read
        memory("idle");

        List<Long> toStatus = new ArrayList<>();
        List<Long> toCurl = new ArrayList<>();
        for (int i = 0; i < services; i++) {
            long created = System.nanoTime();
            client.services().resource(service("lat-" + i, "Cluster")).create();
            InetAddress ip = awaitIngress("lat-" + i, Duration.ofSeconds(30));
            toStatus.add(since(created) / 1000);
            awaitCurl(ip, Duration.ofSeconds(30), Optional.empty());
            toCurl.add(since(created) / 1000);
            // the pool (install's: the LAN's .200-.250) holds 51 IPv4 addresses; each Service gives its own back
            client.services().inNamespace("default").withName("lat-" + i).delete();
            awaitGone("lat-" + i);
        }
        row(
                "Service created -> address in status, p50 / p99 / max of " + services,
                ConflictBenchmark.percentiles(toStatus));
        row(
                "Service created -> first curl answered through kube-proxy, p50 / p99 / max of " + services,
                ConflictBenchmark.percentiles(toCurl));

        // As NodeFailureBenchmark: the speakers readmit a returned node at once, so that 40 deaths in a row do not
        // leave every node held back (the hold doubles with each failure, up to 60 s; issue 32 part 3).
        kubectl(
                "patch",
                "daemonset",
                "lbk8s-speaker",
                "-n",
                "lbk8s-system",
                "--type",
                "json",
                "-p",
                "[{\"op\": \"add\", \"path\": \"/spec/template/spec/containers/0/args/-\", \"value\": "
                        + "\"--rejoin-hold=0\"}]");
        kubectl("rollout", "status", "daemonset/lbk8s-speaker", "-n", "lbk8s-system", "--timeout=180s");
        client.services().resource(service("everywhere", "Local")).create();
        InetAddress vip = awaitIngress("everywhere", Duration.ofSeconds(30));
        for (boolean freeze : List.of(false, true)) {
            List<Long> took = new ArrayList<>();
            for (int trial = 0; trial < deaths; trial++) {
                took.add(nodeDeath(vip, freeze) / 1000);
            }
            row(
                    "leading node " + (freeze ? "frozen (every process, kubelet and containerd too)" : "link down")
                            + " -> client answered by another node (speakers with --rejoin-hold=0), p50 / p99 / max of "
                            + deaths,
                    ConflictBenchmark.percentiles(took));
        }

        List<Long> takeovers = new ArrayList<>();
        for (int kill = 0; kill < kills; kill++) {
            String leader = controllerLeader();
            long killed = System.nanoTime();
            cluster.killContainerProcess(leader, "lbk8s.jar controller");
            client.services().resource(service("after-kill-" + kill, "Cluster")).create();
            awaitIngress("after-kill-" + kill, Duration.ofMinutes(2));
            takeovers.add(since(killed) / 1000);
            Thread.sleep(15_000); // the killed controller restarts and stands by again
        }
        row(
                "leading controller killed -9 -> the next Service assigned, p50 / p99 / max of " + kills,
                ConflictBenchmark.percentiles(takeovers));

        String lan6 = cluster.network().ipv6Pool();
        apply("""
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: many, namespace: lbk8s-system}
                spec:
                  addresses: [%s1:0/112]
                  autoAssign: false
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata: {name: many, namespace: lbk8s-system}
                spec:
                  ipAddressPools: [many]
                """.formatted(lan6.substring(0, lan6.indexOf("::") + 2)));
        for (int i = 0; i < scale; i++) {
            Service many = service("many-" + i, "Cluster");
            many.getMetadata().setAnnotations(Map.of("metallb.io/address-pool", "many"));
            many.getSpec().setIpFamilies(List.of("IPv6"));
            client.services().resource(many).create();
        }
        for (int i = 0; i < scale; i++) {
            awaitIngress("many-" + i, Duration.ofMinutes(5));
        }
        Thread.sleep(30_000);
        memory("with " + (scale + services + kills + 1) + " Services");
    }

    /** Fails the leader of {@code vip}, returns the microseconds until another node answered, then restores it. */
    private long nodeDeath(InetAddress vip, boolean freeze) throws Exception {
        TestNode leader = awaitCurl(vip, Duration.ofSeconds(60), Optional.empty());
        long failed = System.nanoTime();
        if (freeze) {
            cluster.freeze(leader);
        } else {
            cluster.linkDown(leader);
        }
        awaitCurl(vip, Duration.ofSeconds(30), Optional.of(leader));
        long took = since(failed);
        if (freeze) {
            cluster.thaw(leader);
        } else {
            cluster.linkUp(leader);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!kubectl(
                                "get",
                                "node",
                                leader.name(),
                                "-o",
                                "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                        .equals("True")
                && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(5_000); // it rejoins (after its hold) before the next trial
        return took;
    }

    /** Until curl answers from a node other than {@code not}; that node. */
    private TestNode awaitCurl(InetAddress ip, Duration limit, Optional<TestNode> not) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<TestNode> node =
                    cluster.network().client().curl(ip, Duration.ofMillis(300)).flatMap(this::nodeOf);
            if (node.isPresent() && !node.equals(not)) {
                return node.get();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no answer from " + ip + " within " + limit);
    }

    private Optional<TestNode> nodeOf(String body) {
        Matcher m = BACKEND.matcher(body.strip());
        return m.matches()
                ? cluster.network().nodes().stream()
                        .filter(n -> n.name().equals(m.group(1)))
                        .findFirst()
                : Optional.empty();
    }

    private InetAddress awaitIngress(String name, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            Service service =
                    client.services().inNamespace("default").withName(name).get();
            List<LoadBalancerIngress> ingress = service == null || service.getStatus() == null
                    ? List.of()
                    : service.getStatus().getLoadBalancer().getIngress();
            if (!ingress.isEmpty()) {
                return InetAddress.getByName(ingress.getFirst().getIp());
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("Service " + name + " got no address within " + limit);
    }

    private void awaitGone(String name) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (client.services().inNamespace("default").withName(name).get() != null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Service " + name + " not gone within 30 s");
            }
            Thread.sleep(20);
        }
    }

    /** Each lbk8s Pod's working set, summed by role, as the kubelets' resource metrics give it. */
    private void memory(String when) {
        Map<String, List<Long>> byRole = new TreeMap<>();
        for (TestNode node : cluster.network().nodes()) {
            String metrics = kubectl("get", "--raw", "/api/v1/nodes/" + node.name() + "/proxy/metrics/resource");
            for (String line : metrics.lines().toList()) {
                Matcher m = WORKING_SET.matcher(line);
                if (m.find()) {
                    byRole.computeIfAbsent(m.group(1), r -> new ArrayList<>())
                            .add((long) Double.parseDouble(m.group(3)));
                }
            }
        }
        byRole.forEach((role, bytes) -> row(
                role + " Pods' working set (kubelet), " + when,
                bytes.stream()
                        .sorted()
                        .map(b -> String.format("%.0f MiB", b / 1048576.0))
                        .toList()
                        .toString()));
    }

    private String controllerLeader() {
        Matcher m = Pattern.compile("Controller leader: (\\S+)")
                .matcher(lbk8s(Duration.ofSeconds(30), "status").stdout());
        if (!m.find()) {
            throw new IllegalStateException("no controller leads");
        }
        return m.group(1);
    }

    private static Service service(String name, String trafficPolicy) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withExternalTrafficPolicy(trafficPolicy)
                .withSelector(Map.of("app", "web"))
                .addNewPort()
                .withPort(80)
                .withTargetPort(new IntOrString(8080))
                .endPort()
                .endSpec()
                .build();
    }

    private CommandResult lbk8s(Duration timeout, String... arguments) {
        return cluster.runAsAdministrator(cli, timeout, arguments);
    }

    /** kubectl as the administrator, which must succeed; its stdout, stripped. */
    private String kubectl(String... arguments) {
        return ok(cluster.kubectl(Duration.ofMinutes(3), arguments), "kubectl " + String.join(" ", arguments));
    }

    private String apply(String yaml) {
        return ok(cluster.apply(yaml), "kubectl apply");
    }

    private static String ok(CommandResult result, String what) {
        if (!result.ok()) {
            throw new IllegalStateException(what + ": " + result.output().strip());
        }
        return result.stdout().strip();
    }

    private static long since(long nanos) {
        return System.nanoTime() - nanos;
    }

    private static String ms(long nanos) {
        return nanos / 1_000_000 + " ms";
    }

    private static void row(String figure, String value) {
        System.out.println("| real cluster | " + figure + " | " + value + " |");
    }
}

package io.lbk8s.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.testkit.cluster.KubernetesCluster;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real cluster as a user has it: kubectl and the lbk8s CLI against it with the administrator's kubeconfig, and the
 * backend image ("POD on NODE") for Services. Logs in {@code target/cluster-logs/<test>}.
 */
final class UserCluster implements AutoCloseable {

    static final Path REPOSITORY = Path.of(System.getProperty("lbk8s.repository", ".."));
    private static final Pattern BACKEND_BODY = Pattern.compile("^\\S+ on (node-\\d+)$");

    final KubernetesCluster cluster;
    final Path logs;

    private UserCluster(KubernetesCluster cluster, Path logs) {
        this.cluster = cluster;
        this.logs = logs;
    }

    static UserCluster start(String name) throws IOException {
        Path logs = Path.of("target", "cluster-logs", name).toAbsolutePath();
        Path image = Path.of(System.getProperty("lbk8s.image.tar"));
        return new UserCluster(KubernetesCluster.start(3, logs, List.of(image)), logs);
    }

    /** {@code lbk8s ARGS...} from dist's tree, as a user runs it, with the administrator's kubeconfig. */
    CommandResult lbk8s(Duration timeout, String... arguments) {
        return cluster.runAsAdministrator(Path.of(System.getProperty("lbk8s.cli")), timeout, arguments);
    }

    CommandResult kubectl(String... arguments) {
        return cluster.kubectl(Duration.ofSeconds(60), arguments);
    }

    /** kubectl, which must succeed; its stdout. */
    String kubectlOk(String... arguments) {
        CommandResult result = kubectl(arguments);
        assertThat(result.ok())
                .as("kubectl %s: %s", String.join(" ", arguments), result.output())
                .isTrue();
        return result.stdout();
    }

    /** The controller Deployment's 2 replicas and the speaker DaemonSet's 3 Pods Ready, by their own probes. */
    void assertLbk8sReady() {
        assertThat(kubectlOk(
                        "get",
                        "deployment",
                        "lbk8s-controller",
                        "-n",
                        "lbk8s-system",
                        "-o",
                        "jsonpath={.status.readyReplicas}/{.spec.replicas}"))
                .isEqualTo("2/2");
        assertThat(kubectlOk(
                        "get",
                        "daemonset",
                        "lbk8s-speaker",
                        "-n",
                        "lbk8s-system",
                        "-o",
                        "jsonpath={.status.numberReady}/{.status.desiredNumberScheduled}"))
                .isEqualTo("3/3");
    }

    /** {@code kubectl apply -f -} of this YAML. */
    String apply(String yaml) throws IOException {
        Path file = Files.createTempFile(logs, "apply-", ".yaml");
        Files.writeString(file, yaml);
        return kubectlOk("apply", "-f", file.toString());
    }

    /** A Deployment of the backend image and a LoadBalancer Service for it, both named {@code name}. */
    static String web(String name, int replicas, String serviceSpec, String podSpec) {
        return KubernetesCluster.backendDeployment(name, replicas, podSpec) + """
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: %1$s
                  namespace: default
                %2$s
                """.formatted(name, serviceSpec);
    }

    /** The addresses in the Service's status, once it has {@code count}. */
    List<String> awaitIngress(String name, int count) {
        return await("Service " + name + " gets " + count + " address(es)")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> List.of(kubectlOk(
                                                "get",
                                                "service",
                                                name,
                                                "-n",
                                                "default",
                                                "-o",
                                                "jsonpath={.status.loadBalancer.ingress[*].ip}")
                                        .strip()
                                        .split(" "))
                                .stream()
                                .filter(s -> !s.isBlank())
                                .toList(),
                        ips -> ips.size() == count);
    }

    /** The node whose backend answered the client, from the backend's "POD on NODE". */
    Optional<TestNode> nodeOf(Optional<String> body) {
        return body.map(String::strip).flatMap(text -> {
            Matcher m = BACKEND_BODY.matcher(text);
            return m.matches()
                    ? cluster.network().nodes().stream()
                            .filter(n -> n.name().equals(m.group(1)))
                            .findFirst()
                    : Optional.empty();
        });
    }

    /** An address as Java writes it, so that two spellings of one IPv6 address compare equal. */
    static String canonical(String address) {
        try {
            return java.net.InetAddress.getByName(address).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(address, e);
        }
    }

    TestNode nodeWithMac(String mac) {
        return cluster.network().nodes().stream()
                .filter(n -> n.mac().equalsIgnoreCase(mac))
                .findFirst()
                .orElseThrow(() -> new AssertionError(mac + " is the MAC of no node"));
    }

    /** Every line of every lbk8s container's log on every node (the kubelet's files), for what no test expects. */
    String lbk8sLogs() throws IOException {
        StringBuilder all = new StringBuilder();
        for (TestNode node : cluster.network().nodes()) {
            Path podLogs = cluster.nodeDirectory(node).resolve("pod-logs");
            if (!Files.isDirectory(podLogs)) {
                continue;
            }
            try (var files = Files.walk(podLogs)) {
                for (Path log : files.filter(p -> p.toString().contains("lbk8s-system_lbk8s-")
                                && p.toString().endsWith(".log"))
                        .toList()) {
                    all.append(Files.readString(log));
                }
            }
        }
        return all.toString();
    }

    @Override
    public void close() {
        cluster.close();
    }
}

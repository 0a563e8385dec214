package io.lbk8s.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.testkit.cluster.KubernetesCluster;
import io.lbk8s.testkit.net.ArpWatch;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestClient;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * lbk8s installed with {@code lbk8s install} on a real 3-node Kubernetes, then used as a user uses it: MetalLB
 * manifests, Services reached from the client through the real kube-proxy, nodes that die as the LAN sees it. The
 * scenarios share the cluster and run in order, each leaving the cluster as the next expects it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(OrderAnnotation.class)
class InstalledWithTheCliIT {

    /** The promise: answered by another node within a second of a node's death. */
    private static final Duration TAKEOVER = Duration.ofSeconds(1);

    private static final Duration TWO_MACS_WINDOW = Duration.ofMillis(100);

    private UserCluster c;
    private TestNetwork network;
    private TestClient client;

    @BeforeAll
    void startCluster() throws IOException {
        ClusterPrerequisites.check();
        c = UserCluster.start(getClass().getSimpleName());
        network = c.cluster.network();
        client = network.client();
    }

    @AfterAll
    void stopCluster() {
        if (c != null) {
            c.close();
        }
    }

    @Test
    @Order(1)
    void lbk8sInstallBringsUpTheControllersAndSpeakersReadyByTheirOwnProbes() {
        CommandResult install = c.lbk8s(Duration.ofMinutes(4), "install", "--wait", "--timeout", "3m");

        assertThat(install.ok()).as(install.output()).isTrue();
        assertThat(install.stdout()).contains("lbk8s is running");
        c.assertLbk8sReady();
        assertThat(c.kubectlOk(
                                "get",
                                "pods",
                                "-n",
                                "lbk8s-system",
                                "-o",
                                "jsonpath={range .items[*]}{.spec.serviceAccountName} {.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}")
                        .lines()
                        .sorted()
                        .toList())
                .containsExactly(
                        "lbk8s-controller True",
                        "lbk8s-controller True",
                        "lbk8s-speaker True",
                        "lbk8s-speaker True",
                        "lbk8s-speaker True");
    }

    @Test
    @Order(2)
    void metallbManifestsGiveADualStackAddressThatOneNodeAnswersAndKubeProxyServes() throws IOException {
        String v4 = lanAddress(180);
        String v6 = lanIpv6(180);
        c.apply("""
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: lan, namespace: lbk8s-system}
                spec:
                  addresses: [%s-%s, %s-%s]
                  autoAssign: false
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata: {name: lan, namespace: lbk8s-system}
                spec:
                  ipAddressPools: [lan]
                """.formatted(v4, lanAddress(189), v6, lanIpv6(189)));
        c.apply(UserCluster.web("web", 3, """
                  annotations: {metallb.io/address-pool: lan}
                spec:
                  type: LoadBalancer
                  ipFamilyPolicy: RequireDualStack
                  selector: {app: web}
                  ports: [{port: 80, targetPort: 8080}]
                """, ""));

        List<String> ingress = c.awaitIngress("web", 2);

        InetAddress ipv4 = InetAddress.getByName(v4);
        InetAddress ipv6 = InetAddress.getByName(v6);
        assertThat(ingress.stream().map(UserCluster::canonical).toList())
                .containsExactlyInAnyOrder(v4, UserCluster.canonical(v6));
        List<String> macs = await("one node answers ARP")
                .atMost(Duration.ofSeconds(10))
                .until(() -> client.arpingAll(ipv4, Duration.ofSeconds(2)), m -> !m.isEmpty());
        assertThat(macs).as("exactly one MAC answers ARP").hasSize(1);
        TestNode announcer = c.nodeWithMac(macs.getFirst());
        assertThat(client.ndisc6(ipv6, Duration.ofSeconds(2))).contains(announcer.mac());
        assertThat(c.nodeOf(awaitCurl(ipv4)))
                .as("a backend Pod answers over IPv4")
                .isPresent();
        assertThat(c.nodeOf(awaitCurl(ipv6)))
                .as("a backend Pod answers over IPv6")
                .isPresent();

        CommandResult wrongType = c.cluster.apply("""
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: wrong, namespace: lbk8s-system}
                spec:
                  addresses: [%s]
                  autoAssign: "yes"
                """.formatted(lanAddress(190)));
        assertThat(wrongType.ok())
                .as("the CRD's schema refuses a string for a boolean")
                .isFalse();
        assertThat(wrongType.output()).contains("spec.autoAssign");
    }

    @Test
    @Order(3)
    void externalTrafficPolicyLocalIsAnnouncedFromTheNodeWithTheBackend() throws IOException {
        c.apply(UserCluster.web("local", 1, """
                spec:
                  type: LoadBalancer
                  externalTrafficPolicy: Local
                  selector: {app: local}
                  ports: [{port: 80, targetPort: 8080}]
                """, "nodeSelector: {kubernetes.io/hostname: node-2}"));

        InetAddress ip = InetAddress.getByName(c.awaitIngress("local", 1).getFirst());

        TestNode node2 = network.node(2);
        assertThat(c.nodeOf(awaitCurl(ip))).contains(node2);
        await("only node-2 answers ARP")
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(client.arpingAll(ip, Duration.ofSeconds(2))).containsExactly(node2.mac()));
    }

    @Test
    @Order(4)
    void aLeadingNodeWhoseLinkGoesDownIsReplacedWithinASecondAndNothingAnswersTwiceWhenItReturns() throws Exception {
        assertReplacedWithinASecond("link down", c.cluster::linkDown, c.cluster::linkUp);
    }

    @Test
    @Order(5)
    void aLeadingNodeWhoseEveryProcessFreezesIsReplacedWithinASecondAndNothingAnswersTwiceWhenItThaws()
            throws Exception {
        // kubelet, containerd, kube-proxy, the speaker and the Pods
        assertReplacedWithinASecond("frozen", c.cluster::freeze, c.cluster::thaw);
    }

    /** What a node's failure is to the test: something done to the node. */
    private interface NodeChange {
        void apply(TestNode node) throws IOException;
    }

    /**
     * The leader of an eTP Local Service with a backend on every node fails: another node answers the client within
     * a second while Kubernetes still has the failed node Ready; when the node returns, two MACs never answered.
     */
    private void assertReplacedWithinASecond(String failure, NodeChange fail, NodeChange restore) throws Exception {
        InetAddress ip = everyNodeServes("everywhere");
        TestNode leader = servingNode(ip);
        try (Witness witness = Witness.watch(c, ip)) {
            long failedAt = System.nanoTime();
            fail.apply(leader);
            TestNode next = awaitServedByAnother(ip, leader);
            Duration took = Duration.ofNanos(System.nanoTime() - failedAt);
            System.out.println(leader.name() + " " + failure + ": answered by another node after " + took);

            assertThat(took)
                    .as("client answered by %s after %s", next.name(), took)
                    .isLessThan(TAKEOVER);
            assertThat(nodeReady(leader))
                    .as("Kubernetes still has %s Ready", leader.name())
                    .isEqualTo("True");
            restore.apply(leader);
            awaitStableAfterReturn(ip, leader);
            witness.assertNeverTwoMacs();
        }
    }

    @Test
    @Order(6)
    void theLeadingControllerDeletedThenKilledHandsOverAndNoAddressMovesOrRepeats() throws Exception {
        Map<String, List<String>> before = ingressOfEveryService();
        String leader = controllerLeader();

        c.kubectlOk("delete", "pod", leader, "-n", "lbk8s-system", "--wait=false");
        String next = await("another controller leads")
                .atMost(Duration.ofSeconds(30))
                .until(this::controllerLeader, l -> !l.isEmpty() && !l.equals(leader));
        c.apply(simpleService("after-delete"));
        c.awaitIngress("after-delete", 1);

        c.cluster.killContainerProcess(next, "lbk8s.jar controller");
        c.apply(simpleService("after-kill"));
        c.awaitIngress("after-kill", 1);

        Map<String, List<String>> after = ingressOfEveryService();
        before.forEach(
                (service, ips) -> assertThat(after.get(service)).as(service).isEqualTo(ips));
        List<String> all = after.values().stream().flatMap(List::stream).toList();
        assertThat(all).as("no address in two Services").doesNotHaveDuplicates();
    }

    @Test
    @Order(7)
    void aDeletedSpeakerPodIsRecreatedAndItsAddressMovesAndComesBack() throws Exception {
        InetAddress ip = everyNodeServes("everywhere");
        TestNode leader = servingNode(ip);
        String pod = speakerPodOn(leader);
        try (Witness witness = Witness.watch(c, ip)) {
            c.kubectlOk("delete", "pod", pod, "-n", "lbk8s-system", "--wait=false");
            awaitServedByAnother(ip, leader);
            await("the DaemonSet's new speaker on " + leader.name() + " is Ready")
                    .atMost(Duration.ofSeconds(60))
                    .conditionEvaluationListener(condition ->
                            System.out.println("speaker on " + leader.name() + ": " + speakerReadiness(leader)))
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> {
                        String now = speakerPodOn(leader);
                        return !now.isEmpty() && !now.equals(pod) && podReady(now);
                    });
            await("the address back on " + leader.name())
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> c.nodeOf(client.curl(ip, Duration.ofMillis(300))), n -> n.equals(Optional.of(leader)));
            witness.assertNeverTwoMacs();
        }
    }

    @Test
    @Order(8)
    void statusShowsWhatTheClusterHolds() {
        CommandResult status = c.lbk8s(Duration.ofSeconds(60), "status");

        assertThat(status.ok()).as(status.output()).isTrue();
        assertThat(status.stdout())
                .containsPattern("default\\s+web\\s+\\S+\\s+lan\\s+node-\\d\\s+Announced")
                .containsPattern("default\\s+local\\s+\\S+\\s+default\\s+node-2\\s+Announced")
                .contains("Controller leader: lbk8s-controller-");
    }

    @Test
    @Order(9)
    void migrateCopiesMetallbObjectsFromMetallbSystem() throws IOException {
        c.kubectlOk("create", "namespace", "metallb-system");
        c.apply("""
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: legacy, namespace: metallb-system}
                spec:
                  addresses: [%s-%s]
                  autoAssign: false
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata: {name: legacy, namespace: metallb-system}
                spec:
                  ipAddressPools: [legacy]
                """.formatted(lanAddress(170), lanAddress(179)));

        CommandResult migrate = c.lbk8s(Duration.ofSeconds(60), "migrate");

        assertThat(migrate.exitCode()).as(migrate.output()).isZero();
        assertThat(c.kubectlOk(
                        "get", "ipaddresspool", "legacy", "-n", "lbk8s-system", "-o", "jsonpath={.spec.addresses[0]}"))
                .isEqualTo(lanAddress(170) + "-" + lanAddress(179));
        assertThat(c.kubectlOk("get", "l2advertisement", "legacy", "-n", "lbk8s-system", "-o", "name"))
                .contains("legacy");
    }

    @Test
    @Order(10)
    void uninstallLeavesNothingOfLbk8s() {
        CommandResult uninstall = c.lbk8s(Duration.ofMinutes(2), "uninstall", "--purge");

        assertThat(uninstall.ok()).as(uninstall.output()).isTrue();
        await("lbk8s-system gone")
                .atMost(Duration.ofSeconds(90))
                .until(() -> !c.kubectl("get", "namespace", "lbk8s-system").ok());
        assertThat(c.kubectlOk("get", "crd", "-o", "name"))
                .doesNotContain("lbk8s.io")
                .doesNotContain("metallb.io");
        assertThat(c.kubectlOk("get", "clusterroles,clusterrolebindings", "-o", "name"))
                .doesNotContain("lbk8s");
        assertThat(c.kubectlOk("get", "pods", "-A", "-o", "name")).doesNotContain("lbk8s");
    }

    @Test
    @Order(99)
    void noRequestOfLbk8sWasForbidden() throws IOException {
        assertThat(c.lbk8sLogs()).doesNotContainIgnoringCase("forbidden").doesNotContain(" 403");
    }

    private static String simpleService(String name) {
        return """
                apiVersion: v1
                kind: Service
                metadata: {name: %1$s, namespace: default}
                spec:
                  type: LoadBalancer
                  selector: {app: web}
                  ports: [{port: 80, targetPort: 8080}]
                """.formatted(name);
    }

    private Map<String, List<String>> ingressOfEveryService() {
        Map<String, List<String>> ingress = new TreeMap<>();
        c.kubectlOk(
                        "get",
                        "services",
                        "-n",
                        "default",
                        "-o",
                        "jsonpath={range .items[*]}{.metadata.name}={.status.loadBalancer.ingress[*].ip}{\"\\n\"}{end}")
                .lines()
                .map(line -> line.split("=", 2))
                .filter(kv -> kv.length == 2 && !kv[1].isBlank())
                .forEach(kv -> ingress.put(kv[0], List.of(kv[1].strip().split(" "))));
        return ingress;
    }

    /** The Lease's holder, as {@code lbk8s status} shows it; empty while none. */
    private String controllerLeader() {
        CommandResult status = c.lbk8s(Duration.ofSeconds(30), "status");
        var m = java.util.regex.Pattern.compile("Controller leader: (\\S+)").matcher(status.stdout());
        return m.find() ? m.group(1) : "";
    }

    private String speakerPodOn(TestNode node) {
        return c.kubectlOk(
                        "get",
                        "pods",
                        "-n",
                        "lbk8s-system",
                        "--field-selector",
                        "spec.nodeName=" + node.name(),
                        "-o",
                        "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}")
                .lines()
                .filter(name -> name.startsWith("lbk8s-speaker-"))
                .findFirst()
                .orElse("");
    }

    /** What the node's speaker says of its readiness (its /readyz), for a failure's message. */
    private String speakerReadiness(TestNode node) {
        String readyz = network.run(
                        node.namespace(),
                        Duration.ofSeconds(5),
                        "curl",
                        "-s",
                        "-m",
                        "2",
                        "http://127.0.0.1:7472/readyz")
                .output()
                .strip();
        try (var files = Files.walk(c.cluster.nodeDirectory(node).resolve("pod-logs"))) {
            Optional<Path> newest = files.filter(p -> p.toString().contains("lbk8s-speaker") && Files.isRegularFile(p))
                    .max(java.util.Comparator.comparingLong(p -> p.toFile().lastModified()));
            List<String> lines = newest.isPresent() ? Files.readAllLines(newest.get()) : List.of();
            return readyz + "\n  " + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 6), lines.size()));
        } catch (IOException e) {
            return readyz + " (" + e.getMessage() + ")";
        }
    }

    private boolean podReady(String pod) {
        return c.kubectl(
                        "get",
                        "pod",
                        pod,
                        "-n",
                        "lbk8s-system",
                        "-o",
                        "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                .stdout()
                .strip()
                .equals("True");
    }

    /** A Service with eTP Local and a backend on every node: the node whose backend answers is the announcer. */
    private InetAddress everyNodeServes(String name) throws IOException {
        c.apply(UserCluster.web(name, 3, """
                spec:
                  type: LoadBalancer
                  externalTrafficPolicy: Local
                  selector: {app: %1$s}
                  ports: [{port: 80, targetPort: 8080}]
                """.formatted(name), KubernetesCluster.onePodPerNode(name)));
        c.kubectlOk("rollout", "status", "deployment/" + name, "-n", "default", "--timeout=90s");
        return InetAddress.getByName(c.awaitIngress(name, 1).getFirst());
    }

    private TestNode servingNode(InetAddress ip) {
        return c.nodeOf(awaitCurl(ip)).orElseThrow();
    }

    private Optional<String> awaitCurl(InetAddress ip) {
        return await("curl http://" + ip.getHostAddress() + "/ answered")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> client.curl(ip, Duration.ofSeconds(1)), Optional::isPresent);
    }

    private TestNode awaitServedByAnother(InetAddress ip, TestNode leader) {
        return await("curl answered by a node other than " + leader.name())
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> c.nodeOf(client.curl(ip, Duration.ofMillis(300))),
                        n -> n.isPresent() && !n.get().equals(leader))
                .orElseThrow();
    }

    /** After the node returns, the address settles (back on it after the hold, or where it is) and stays. */
    private void awaitStableAfterReturn(InetAddress ip, TestNode returned) throws InterruptedException {
        await(returned.name() + " Ready again")
                .atMost(Duration.ofSeconds(60))
                .until(() -> nodeReady(returned).equals("True"));
        Thread.sleep(5000);
        assertThat(c.nodeOf(awaitCurl(ip)))
                .as("served after %s returned", returned.name())
                .isPresent();
    }

    private String nodeReady(TestNode node) {
        return c.kubectlOk(
                        "get", "node", node.name(), "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                .strip();
    }

    private String lanAddress(int last) {
        String pool = network.ipv4Pool(); // 198.18.X.200-198.18.X.250
        return pool.substring(0, pool.lastIndexOf('.', pool.indexOf('-'))) + "." + last;
    }

    private String lanIpv6(int last) {
        String pool = network.ipv6Pool(); // fd00:1b8:X::200-...
        return pool.substring(0, pool.indexOf("::") + 2) + last;
    }

    /** The client asks for the address 20 times a second while tcpdump records every answer. */
    private record Witness(ArpWatch watch, NamespacedProcess asker, InetAddress ip) implements AutoCloseable {

        static Witness watch(UserCluster c, InetAddress ip) {
            TestNetwork network = c.cluster.network();
            ArpWatch watch = ArpWatch.start(network, c.logs.resolve("arp-watch-" + System.nanoTime() + ".log"));
            NamespacedProcess asker = network.start(
                    network.client().namespace(),
                    List.of("arping", "-b", "-i", "0.05", "-c", "2400", "-I", "eth0", ip.getHostAddress()),
                    c.logs.resolve("arp-asker-" + System.nanoTime() + ".log"));
            return new Witness(watch, asker, ip);
        }

        void assertNeverTwoMacs() {
            assertThat(ArpWatch.overlaps(watch.answers(ip), TWO_MACS_WINDOW))
                    .as("two MACs answering for %s within 100 ms", ip)
                    .isEmpty();
        }

        @Override
        public void close() {
            asker.stop(Duration.ofSeconds(1));
            watch.close();
        }
    }
}

package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a user on the LAN sees: for each LoadBalancer Service, one node answers ARP/NDP for its address, and
 * traffic to it reaches that node. Every check is made from the client namespace with arping, ndisc6 and curl.
 */
class L2AnnouncementIT {
    static final Duration SOON = Duration.ofSeconds(15);
    static Sandbox cluster;
    static TestNetwork network;

    @BeforeAll
    static void startCluster() throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(Sandbox.REPO.resolve("lbk8s/target/e2e-logs/announce-" + System.currentTimeMillis()));
        network = cluster.network;
        String v4 = network.ipv4PoolAddress(0).getHostAddress() + "-"
                + network.ipv4PoolAddress(19).getHostAddress();
        String v6 = network.ipv6PoolAddress(0).getHostAddress() + "-"
                + network.ipv6PoolAddress(19).getHostAddress();
        cluster.createMetallb("IPAddressPool", "main", "{addresses: ['" + v4 + "', '" + v6 + "']}");
        cluster.createMetallb("L2Advertisement", "main", "{ipAddressPools: [main]}");
        cluster.createMetallb(
                "IPAddressPool",
                "edge",
                "{autoAssign: false, addresses: ['"
                        + network.ipv4PoolAddress(20).getHostAddress() + "-"
                        + network.ipv4PoolAddress(24).getHostAddress() + "']}");
        cluster.createMetallb(
                "L2Advertisement",
                "edge",
                "{ipAddressPools: [edge], nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}]}");
        cluster.createMetallb(
                "IPAddressPool",
                "dark",
                "{autoAssign: false, addresses: ['"
                        + network.ipv4PoolAddress(30).getHostAddress() + "-"
                        + network.ipv4PoolAddress(34).getHostAddress() + "']}");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static ServiceBuilder loadBalancer(String name, int port) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withSelector(Map.of("app", name))
                .addNewPort()
                .withName("http")
                .withPort(port)
                .withProtocol("TCP")
                .endPort()
                .endSpec();
    }

    /** Without a selector no EndpointSlice controller writes its endpoints: the test does, with {@link #endpointOn}. */
    static ServiceBuilder withoutSelector(ServiceBuilder service) {
        return service.editSpec().withSelector(null).endSpec();
    }

    /** The Service's one endpoint, on {@code node}, ready or not, as the EndpointSlice controller writes a Pod's. */
    static void endpointOn(String service, TestNode node, boolean ready) {
        OneEndpoint.on(cluster, service, node, ready);
    }

    static void create(ServiceBuilder service) {
        cluster.client.services().resource(service.build()).create();
    }

    /** The node named by the Service's ServiceL2Status, once exactly one exists (`kubectl get servicel2statuses`). */
    static TestNode announcingNode(String service) {
        String node = await(service + " has one ServiceL2Status")
                .atMost(SOON)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> statusNode(service), Optional::isPresent)
                .orElseThrow();
        return cluster.nodeNamed(node);
    }

    static Optional<String> statusNode(String service) {
        return cluster.announcingNode("default", service);
    }

    static void awaitArpAnswer(InetAddress ip, TestNode expected) {
        await("ARP for " + ip.getHostAddress() + " answered by " + expected.name())
                .atMost(SOON)
                .until(
                        () -> network.client().arping(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(expected.mac())));
    }

    static void awaitCurl(String url, TestNode expected) {
        await("curl " + url + " answered by " + expected.name())
                .atMost(SOON)
                .until(
                        () -> network.client().curl(url, Duration.ofSeconds(1)),
                        body -> body.equals(Optional.of(expected.backendBody())));
    }

    static boolean hasEvent(String service, String type, String reason, String messagePart) {
        return events(service, type, reason, messagePart) > 0;
    }

    static long events(String service, String type, String reason, String messagePart) {
        return cluster.events("default", service).stream()
                .filter(e -> type.equals(e.getType())
                        && reason.equals(e.getReason())
                        && e.getMessage() != null
                        && e.getMessage().contains(messagePart))
                .count();
    }

    @Test
    void arpingFindsTheLeaderAndCurlReachesIt() {
        create(loadBalancer("web", 80));
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "web", 1).getFirst());
        TestNode leader = announcingNode("web");

        awaitArpAnswer(ip, leader);
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .as("exactly one node answers")
                .containsExactly(leader.mac());
        awaitCurl("http://" + ip.getHostAddress() + "/", leader);
        assertThat(network.client().neighbor(ip))
                .hasValueSatisfying(n -> assertThat(n.mac()).isEqualTo(leader.mac()));

        await().atMost(SOON)
                .until(() -> hasEvent(
                        "web",
                        "Normal",
                        "nodeAssigned",
                        "announcing from node " + leader.name() + " on interface eth0 (" + leader.mac() + ")"));
        assertThat(cluster.readyz(leader)).hasValueSatisfying(r -> assertThat(r).startsWith("200 ready: announcing"));
        assertThat(cluster.speaker(leader).log())
                .as("the speakers run as root here: ARP is answered in the kernel")
                .contains("answering ARP and NDP on interface eth0")
                .contains("ARP in the kernel (XDP)");
        // answers the kernel gave (XDP) reach the metrics within about a second
        await().atMost(SOON)
                .untilAsserted(() -> assertThat(cluster.metrics(leader))
                        .hasValueSatisfying(m -> assertThat(m)
                                .containsPattern("lbk8s_layer2_responses_sent_total\\{interface=\"eth0\",ip=\""
                                        + ip.getHostAddress().replace(".", "\\.") + "\"} [1-9]")
                                .containsPattern("lbk8s_layer2_gratuitous_sent_total\\{interface=\"eth0\",ip=\""
                                        + ip.getHostAddress().replace(".", "\\.") + "\"} [1-9]")
                                .contains("lbk8s_speaker_announced_addresses")));
    }

    @Test
    void ipv6ServiceIsAnsweredOverNdpAndReachable() {
        create(loadBalancer("web6", 80)
                .editSpec()
                .withIpFamilies("IPv6")
                .withIpFamilyPolicy("SingleStack")
                .endSpec());
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "web6", 1).getFirst());
        assertThat(ip.getAddress()).hasSize(16);
        TestNode leader = announcingNode("web6");

        await("NDP for " + ip.getHostAddress())
                .atMost(SOON)
                .until(
                        () -> network.client().ndisc6(ip, Duration.ofSeconds(1)),
                        mac -> mac.equals(Optional.of(leader.mac())));
        awaitCurl("http://[" + ip.getHostAddress() + "]/", leader);
    }

    @Test
    void localTrafficPolicyAnnouncesFromTheNodeWithTheEndpoint() {
        create(withoutSelector(loadBalancer("local", 80)
                .editSpec()
                .withExternalTrafficPolicy("Local")
                .endSpec()));
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "local", 1).getFirst());
        await("warning: no endpoint")
                .atMost(SOON)
                .until(() -> hasEvent(
                        "local",
                        "Warning",
                        "NotAnnounced",
                        "the Service has no ready endpoint, and with externalTrafficPolicy: Local"));
        assertThat(network.client().arping(ip, Duration.ofSeconds(1)))
                .as("nobody answers without an endpoint")
                .isEmpty();

        for (TestNode target : List.of(network.node(1), network.node(2))) {
            endpointOn("local", target, true);
            awaitArpAnswer(ip, target);
            awaitCurl("http://" + ip.getHostAddress() + "/", target);
            assertThat(announcingNode("local")).isEqualTo(target);
        }

        // one speaker reports the warning; with the endpoint on another node, it had no problem meanwhile, so when
        // the endpoint goes it must say so again
        String reporter = cluster.events("default", "local").stream()
                .filter(e -> "NotAnnounced".equals(e.getReason()))
                .findFirst()
                .orElseThrow()
                .getSource()
                .getHost();
        TestNode elsewhere = network.nodes().stream()
                .filter(n -> !n.name().equals(reporter))
                .findFirst()
                .orElseThrow();
        endpointOn("local", elsewhere, true);
        awaitArpAnswer(ip, elsewhere);
        cluster.client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace("default")
                .withName("local-slice")
                .delete();
        await("the warning said again")
                .atMost(SOON)
                .until(() -> events(
                                "local",
                                "Warning",
                                "NotAnnounced",
                                "the Service has no ready endpoint, and with externalTrafficPolicy: Local")
                        == 2);
    }

    @Test
    void anAddressIsAnsweredOnlyWhileTheServiceHasAReadyEndpoint() {
        create(withoutSelector(loadBalancer("unready", 80)));
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "unready", 1).getFirst());
        String noEndpoint =
                "the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no node announces "
                        + ip.getHostAddress();
        await("warning: no ready endpoint")
                .atMost(SOON)
                .until(() -> hasEvent("unready", "Warning", "NotAnnounced", noEndpoint));
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .as("nobody answers without an endpoint")
                .isEmpty();
        assertThat(cluster.l2Statuses("default", "unready")).isEmpty();

        endpointOn("unready", network.node(2), false);
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .as("nor while its Pod is not ready")
                .isEmpty();

        endpointOn("unready", network.node(2), true);
        TestNode leader = announcingNode("unready");
        awaitArpAnswer(ip, leader);
        awaitCurl("http://" + ip.getHostAddress() + "/", leader);

        cluster.client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace("default")
                .withName("unready-slice")
                .delete();
        await("the last endpoint gone, nobody answers")
                .atMost(SOON)
                .until(() ->
                        network.client().arpingAll(ip, Duration.ofSeconds(1)).isEmpty()
                                && cluster.l2Statuses("default", "unready").isEmpty());
        await("the same warning, said again now that it holds again")
                .atMost(SOON)
                .until(() -> events("unready", "Warning", "NotAnnounced", noEndpoint) == 2);
    }

    @Test
    void excludeLabelMovesTheAddressAway() {
        create(loadBalancer("excluded", 80));
        InetAddress ip = Sandbox.address(
                cluster.awaitIngressIps("default", "excluded", 1).getFirst());
        TestNode first = announcingNode("excluded");
        awaitArpAnswer(ip, first);
        cluster.label(first, "node.kubernetes.io/exclude-from-external-load-balancers", "");
        try {
            await("another node announces")
                    .atMost(SOON)
                    .until(
                            () -> statusNode("excluded"),
                            n -> n.isPresent() && !n.get().equals(first.name()));
            TestNode second = announcingNode("excluded");
            awaitArpAnswer(ip, second);
            awaitCurl("http://" + ip.getHostAddress() + "/", second);
            assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2))).containsExactly(second.mac());
        } finally {
            cluster.label(first, "node.kubernetes.io/exclude-from-external-load-balancers", null);
        }
        awaitArpAnswer(ip, first);
    }

    @Test
    void nodeSelectorsKeepOtherNodesOut() {
        create(loadBalancer("edge", 80)
                .editMetadata()
                .withAnnotations(Map.of("metallb.io/address-pool", "edge"))
                .endMetadata());
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "edge", 1).getFirst());
        awaitArpAnswer(ip, network.node(1));
        assertThat(announcingNode("edge")).isEqualTo(network.node(1));
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2)))
                .containsExactly(network.node(1).mac());
    }

    @Test
    void servicesSharingAnAddressAnnounceFromOneNode() {
        String shared = network.ipv4PoolAddress(15).getHostAddress();
        Map<String, String> annotations =
                Map.of("metallb.io/allow-shared-ip", "team", "metallb.io/loadBalancerIPs", shared);
        create(loadBalancer("share-a", 80)
                .editMetadata()
                .withAnnotations(annotations)
                .endMetadata());
        create(loadBalancer("share-b", 443)
                .editMetadata()
                .withAnnotations(annotations)
                .endMetadata());
        assertThat(cluster.awaitIngressIps("default", "share-a", 1)).containsExactly(shared);
        assertThat(cluster.awaitIngressIps("default", "share-b", 1)).containsExactly(shared);
        TestNode a = announcingNode("share-a");
        assertThat(announcingNode("share-b")).isEqualTo(a);
        awaitArpAnswer(Sandbox.address(shared), a);
        assertThat(network.client().arpingAll(Sandbox.address(shared), Duration.ofSeconds(2)))
                .containsExactly(a.mac());
    }

    @Test
    void serviceOfAnotherClassGetsNothing() {
        create(loadBalancer("foreign", 80)
                .editSpec()
                .withLoadBalancerClass("example.com/other-lb")
                .endSpec());
        // another implementation would write its own address; the speaker must not answer for it
        String theirs = network.ipv4PoolAddress(18).getHostAddress();
        var service = cluster.service("default", "foreign");
        service.setStatus(new io.fabric8.kubernetes.api.model.ServiceStatusBuilder()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(theirs)
                .endIngress()
                .endLoadBalancer()
                .build());
        cluster.client.services().resource(service).updateStatus();
        assertThat(network.client().arpingAll(Sandbox.address(theirs), Duration.ofSeconds(3)))
                .isEmpty();
        assertThat(cluster.l2Statuses("default", "foreign")).isEmpty();
        assertThat(cluster.ingressIps("default", "foreign")).containsExactly(theirs);
    }

    @Test
    void poolWithoutAdvertisementGetsAWarning() {
        create(loadBalancer("dark", 80)
                .editMetadata()
                .withAnnotations(Map.of("metallb.io/address-pool", "dark"))
                .endMetadata());
        InetAddress ip =
                Sandbox.address(cluster.awaitIngressIps("default", "dark", 1).getFirst());
        await("NotAnnounced warning")
                .atMost(SOON)
                .until(() -> hasEvent(
                        "dark",
                        "Warning",
                        "NotAnnounced",
                        "no L2Advertisement selects pool \"dark\", so no node announces " + ip.getHostAddress()));
        assertThat(network.client().arpingAll(ip, Duration.ofSeconds(2))).isEmpty();
        long warnings = cluster.events("default", "dark").stream()
                .filter(e -> "NotAnnounced".equals(e.getReason()))
                .count();
        assertThat(warnings).as("one speaker reports, not every one").isEqualTo(1);
    }
}

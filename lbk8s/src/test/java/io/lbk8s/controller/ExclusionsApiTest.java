package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.kube.KindNetwork;
import io.lbk8s.service.Annotations;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Addresses a Service must never get, as a user sees them: on a kind-like network (control-plane 172.18.0.2, also
 * the API server; worker-1 172.18.0.3; gateway 172.18.0.1; subnet 172.18.0.0/16), pools over those addresses give
 * Services only the others, and say which they leave out and why.
 */
class ExclusionsApiTest {
    static final String NS = ControllerHarness.DEFAULT_NAMESPACE;
    private ControllerHarness lb;

    @AfterEach
    void tearDown() {
        if (lb != null) {
            lb.close();
        }
    }

    /** The cluster's objects exist before the controller starts, as they do in a cluster. */
    private void kind() throws Exception {
        lb = new ControllerHarness(NS, Optional.empty());
        KindNetwork kind = new KindNetwork(lb.client, NS);
        kind.node("control-plane", "InternalIP", "172.18.0.2", "Hostname", "control-plane");
        kind.node("worker-1", "InternalIP", "172.18.0.3");
        kind.apiServer("172.18.0.2");
        lb.startController();
    }

    private Event awaitPoolEvent(String pool, String reason) {
        return lb.awaitEvent(NS, pool, reason);
    }

    @Test
    void aPoolOverTheNodeSubnetGivesOnlyTheOtherAddressesAndSaysWhichItLeavesOut() throws Exception {
        kind();
        lb.pool("kind", "172.18.0.0-172.18.0.5");
        lb.service("first");
        lb.service("second");

        assertThat(List.of(lb.awaitIp("first"), lb.awaitIp("second")))
                .containsExactlyInAnyOrder("172.18.0.4", "172.18.0.5");
        Event excluded = awaitPoolEvent("kind", "AddressesExcluded");
        assertThat(excluded.getType()).isEqualTo("Warning");
        assertThat(excluded.getMessage())
                .isEqualTo(
                        "4 address(es) of this pool are not given to any Service: "
                                + "172.18.0.0 (network address of 172.18.0.0/16), 172.18.0.1 (gateway of nodes control-plane and worker-1), "
                                + "172.18.0.2 (InternalIP of node control-plane; address on eth0 of node control-plane; an endpoint of the"
                                + " Kubernetes API server), 172.18.0.3 (InternalIP of node worker-1; address on eth0 of node worker-1)");

        lb.service("third");
        assertThat(lb.awaitEvent("default", "third", "AllocationFailed").getMessage())
                .startsWith(
                        "pool \"kind\" has no free address (2 of 2 in use; 4 more not given to any Service: 172.18.0.0 "
                                + "(network address of 172.18.0.0/16), 172.18.0.1 (gateway of nodes control-plane and worker-1), ");
        assertThat(lb.ips("default", "third")).isEmpty();
        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        lb::metrics,
                        m -> m.contains("lbk8s_pool_excluded_addresses{pool=\"kind\"} 4.0")
                                && m.contains("lbk8s_pool_addresses{pool=\"kind\"} 2.0"));
        assertThat(lb.events(NS, "kind"))
                .filteredOn(e -> e.getReason().equals("AddressesExcluded"))
                .hasSize(1);
    }

    @Test
    void statusListsEachPoolsExcludedAddressesAndCountsWithoutThem(@TempDir Path dir) throws Exception {
        kind();
        lb.pool("kind", "172.18.0.0-172.18.0.5");
        lb.pool("other", "10.9.0.0/30");
        lb.pool("loopback", "127.0.0.0/8");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("172.18.0.4");

        CliRun status = CliRun.of(lb.server.writeKubeconfig(dir.resolve("kubeconfig")), "status");

        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .containsPattern("(?m)^kind +172\\.18\\.0\\.0-172\\.18\\.0\\.5 +true +1 +1 *$")
                .containsPattern("(?m)^other +10\\.9\\.0\\.0/30 +true +0 +4 *$")
                .contains(
                        "pool kind: 4 address(es) not given to any Service: 172.18.0.0 (network address of 172.18.0.0/16), "
                                + "172.18.0.1 (gateway of nodes control-plane and worker-1), 172.18.0.2 (InternalIP of node control-plane;"
                                + " address on eth0 of node control-plane; an endpoint of the Kubernetes API server), 172.18.0.3"
                                + " (InternalIP of node worker-1; address on eth0 of node worker-1)\n")
                .doesNotContain("pool other:")
                .contains(
                        "configuration error: ERROR IPAddressPool lbk8s-system/loopback: addresses[0] \"127.0.0.0/8\": includes"
                                + " addresses that are never a host's, so never a Service's: 127.0.0.0/8 (loopback (RFC 1122), never leaves a host)");

        CliRun json = CliRun.of(lb.server.writeKubeconfig(dir.resolve("kubeconfig")), "status", "-o", "json");
        assertThat(json.code()).as(json.err()).isZero();
        assertThat(json.out())
                .contains("\"size\" : \"2\"", "\"172.18.0.1\" : \"gateway of nodes control-plane and worker-1\"");
    }

    static Stream<Arguments> singleAddressPools() {
        return Stream.of(
                Arguments.argumentSet(
                        "a node's InternalIP",
                        "172.18.0.3/32",
                        "172.18.0.3 (InternalIP of node worker-1; address on eth0 of node worker-1)"),
                Arguments.argumentSet(
                        "the gateway", "172.18.0.1", "172.18.0.1 (gateway of nodes control-plane and worker-1)"),
                Arguments.argumentSet(
                        "the API server's address",
                        "172.18.0.2-172.18.0.2",
                        "172.18.0.2 (InternalIP of node control-plane; address on eth0 of node control-plane; an endpoint of the Kubernetes API server)"),
                Arguments.argumentSet(
                        "the subnet's broadcast address",
                        "172.18.255.255",
                        "172.18.255.255 (broadcast address of 172.18.0.0/16)"));
    }

    @ParameterizedTest
    @MethodSource("singleAddressPools")
    void aPoolOfOneTakenAddressGivesNothingAndSaysWhy(String range, String why) throws Exception {
        kind();
        lb.pool("one", range);
        lb.service("web");

        assertThat(lb.awaitEvent("default", "web", "AllocationFailed", ControllerHarness.PAST_NO_POOL)
                        .getMessage())
                .isEqualTo("pool \"one\" has no free address (0 of 0 in use; 1 more not given to any Service: " + why
                        + ")");
        assertThat(awaitPoolEvent("one", "AddressesExcluded").getMessage())
                .isEqualTo("1 address(es) of this pool are not given to any Service: " + why);
        assertThat(lb.ips("default", "web")).isEmpty();
    }

    @Test
    void aRangeEndingOneBelowANodeAddressLosesNothing() throws Exception {
        kind();
        lb.pool("below", "172.18.0.4-172.18.0.9");
        lb.pool("above", "172.18.0.2-172.18.0.3");
        new KindNetwork(lb.client, NS).addAddress("worker-1", "ExternalIP", "172.18.0.10");
        lb.service(
                "default",
                "top",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_IPS, "172.18.0.9")
                        .endMetadata());
        lb.service(
                "default",
                "bottom",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_IPS, "172.18.0.4")
                        .endMetadata());

        assertThat(lb.awaitIps("default", "top")).containsExactly("172.18.0.9");
        assertThat(lb.awaitIps("default", "bottom")).containsExactly("172.18.0.4");
        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        lb::metrics,
                        m -> m.contains("lbk8s_pool_excluded_addresses{pool=\"below\"} 0.0")
                                && m.contains("lbk8s_pool_addresses{pool=\"below\"} 6.0"));
        assertThat(lb.events(NS, "below")).extracting(Event::getReason).doesNotContain("AddressesExcluded");
    }

    @Test
    void aServiceAskingForATakenAddressIsRefusedWithWhy() throws Exception {
        kind();
        lb.pool("kind", "172.18.0.0/24");
        lb.service(
                "default",
                "asks-node",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_IPS, "172.18.0.3")
                        .endMetadata());
        lb.service(
                "default",
                "asks-gateway",
                b -> b.editSpec().withLoadBalancerIP(KindNetwork.GATEWAY).endSpec());

        assertThat(lb.awaitEvent("default", "asks-node", "AllocationFailed", ControllerHarness.PAST_NO_POOL)
                        .getMessage())
                .isEqualTo(
                        "requested IP 172.18.0.3 is"
                                + " not given to any Service: it is taken (InternalIP of node worker-1; address on eth0 of node worker-1)");
        assertThat(lb.awaitEvent("default", "asks-gateway", "AllocationFailed", ControllerHarness.PAST_NO_POOL)
                        .getMessage())
                .isEqualTo("requested IP 172.18.0.1 is"
                        + " not given to any Service: it is taken (gateway of nodes control-plane and worker-1)");
        assertThat(lb.ips("default", "asks-node")).isEmpty();
        assertThat(lb.ips("default", "asks-gateway")).isEmpty();
    }

    @Test
    void anAddressANodeReportsMovesItsServiceOrRefusesItAndKeepsTheOthers() throws Exception {
        kind();
        lb.pool("p", "172.18.0.100-172.18.0.110");
        lb.service("a");
        assertThat(lb.awaitIp("a")).isEqualTo("172.18.0.100");
        lb.service(
                "default",
                "b",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_IPS, "172.18.0.101")
                        .endMetadata());
        assertThat(lb.awaitIps("default", "b")).containsExactly("172.18.0.101");
        lb.service("c");
        assertThat(lb.awaitIp("c")).isEqualTo("172.18.0.102");

        // a node reports addresses the pool had handed out
        KindNetwork kind = new KindNetwork(lb.client, NS);
        kind.addAddress("worker-1", "InternalIP", "172.18.0.100");
        kind.addAddress("worker-1", "ExternalIP", "172.18.0.101");

        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.ips("default", "a"), List.of("172.18.0.103")::equals);
        assertThat(lb.awaitEvent("default", "a", "AddressExcluded").getMessage())
                .isEqualTo("172.18.0.100 (InternalIP of"
                        + " node worker-1) is not given to any Service; it moves to 172.18.0.103 from pool p");
        assertThat(lb.awaitEvent("default", "b", "AllocationFailed").getMessage())
                .isEqualTo(
                        "requested IP 172.18.0.101 is not given to any Service: it is taken (ExternalIP of node worker-1)");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "b").isEmpty());
        assertThat(lb.awaitEvent("default", "b", "AddressExcluded").getMessage())
                .startsWith(
                        "172.18.0.101 (ExternalIP of"
                                + " node worker-1) is not given to any Service; it has no address now: requested IP 172.18.0.101");
        assertThat(lb.ips("default", "c")).containsExactly("172.18.0.102");
        // one Event per change: the first address then both, or both at once when the two updates came together
        String first =
                "1 address(es) of this pool are not given to any Service: 172.18.0.100 (InternalIP of node worker-1)";
        String both =
                "2 address(es) of this pool are not given to any Service: 172.18.0.100 (InternalIP of node worker-1), "
                        + "172.18.0.101 (ExternalIP of node worker-1)";
        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> lb.events(NS, "p").stream()
                                .filter(e -> e.getReason().equals("AddressesExcluded"))
                                .map(Event::getMessage)
                                .toList(),
                        said -> said.equals(List.of(first, both)) || said.equals(List.of(both)));
    }

    @Test
    void aSubnetASpeakerReportsLaterMovesTheServiceOnItsNetworkAddress() throws Exception {
        kind();
        KindNetwork kind = new KindNetwork(lb.client, NS);
        kind.bareNode("edge", "InternalIP", "10.20.0.5"); // its speaker has not started yet
        lb.pool("edge", "10.20.0.0-10.20.0.3");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.20.0.0");

        kind.speaker("edge", "10.20.0.5/24", "10.20.0.1");

        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.ips("default", "web"), List.of("10.20.0.2")::equals);
        assertThat(lb.awaitEvent("default", "web", "AddressExcluded").getMessage())
                .isEqualTo("10.20.0.0 (network address"
                        + " of 10.20.0.0/24) is not given to any Service; it moves to 10.20.0.2 from pool edge");
    }

    @Test
    void aServiceShowingATakenAddressAtStartMovesToAFreeOne() throws Exception {
        kind();
        lb.stopController();
        lb.pool("p", "172.18.0.2-172.18.0.10");
        lb.service("old");
        lb.setIngress("default", "old", "172.18.0.3"); // given before lbk8s excluded it
        lb.startController();

        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.ips("default", "old"), List.of("172.18.0.4")::equals);
        assertThat(lb.awaitEvent("default", "old", "AddressExcluded").getMessage())
                .isEqualTo(
                        "172.18.0.3 (InternalIP of"
                                + " node worker-1; address on eth0 of node worker-1) is not given to any Service; it moves to 172.18.0.4 from pool p");
    }

    /** A pool an older lbk8s accepted with a loopback entry: the upgrade keeps the rest of it, and its Services. */
    @Test
    void anUpgradeKeepsAnAcceptedPoolWithoutItsSpecialEntryAndItsServicesAddresses() throws Exception {
        lb = new ControllerHarness(NS, Optional.empty());
        lb.pool("mixed", "10.5.0.200-10.5.0.210", "127.0.0.1");
        lb.service("web");
        lb.setIngress("default", "web", "10.5.0.200");
        new ConfigurationStates(lb.client, NS, ConfigurationStates.CONTROLLER)
                .report(
                        true,
                        "",
                        ConfigResources.sources(
                                lb.client
                                        .genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                                        .inNamespace(NS)
                                        .list()
                                        .getItems(),
                                List.of(),
                                Optional.empty()));
        lb.startController();
        lb.service("new");

        assertThat(lb.awaitIp("new")).isEqualTo("10.5.0.201");
        assertThat(lb.ips("default", "web")).containsExactly("10.5.0.200");
        assertThat(lb.awaitEvent(NS, "mixed", "ConfigurationWarning").getMessage())
                .isEqualTo("addresses[1] \"127.0.0.1\":"
                        + " includes addresses that are never a host's, so never a Service's: 127.0.0.0/8 (loopback (RFC 1122), never"
                        + " leaves a host); this pool was accepted before lbk8s refused such addresses, so lbk8s keeps using it without"
                        + " this entry: remove the entry");
        assertThat(lb.events("default", "web"))
                .extracting(Event::getReason)
                .doesNotContain("ClearAssignment", "AllocationFailed");
    }

    @Test
    void poolsOfSpecialPurposeAddressesAreRefusedAndGiveNothing() throws Exception {
        lb = ControllerHarness.started();
        Map<String, String> pools = Map.of(
                "loopback",
                "127.0.0.0/8",
                "broadcast",
                "255.255.255.255/32",
                "multicast",
                "224.0.0.0/24",
                "link-local",
                "169.254.0.0/16",
                "this-network",
                "0.0.0.0/32",
                "v6-link-local",
                "fe80::/10");
        pools.forEach((name, range) -> lb.pool(name, range));
        lb.pool("ok", "10.9.0.0/30");

        pools.forEach((name, range) -> assertThat(
                        lb.awaitEvent(NS, name, "InvalidConfiguration").getMessage())
                .startsWith("addresses[0] \"" + range
                        + "\": includes addresses that are never a host's, so never a Service's: ")
                .endsWith("lbk8s does not use this object until it is fixed"));
        lb.service(
                "default",
                "asks-loopback",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_POOL, "loopback")
                        .endMetadata());
        lb.service(
                "default",
                "asks-127",
                b -> b.editSpec().withLoadBalancerIP("127.0.0.1").endSpec());
        lb.service("any");

        assertThat(lb.awaitIp("any")).isEqualTo("10.9.0.0");
        assertThat(lb.awaitEvent("default", "asks-loopback", "AllocationFailed").getMessage())
                .startsWith("requested pool \"loopback\" does not exist");
        assertThat(lb.awaitEvent("default", "asks-127", "AllocationFailed").getMessage())
                .isEqualTo("requested IP 127.0.0.1 is not in any address pool");
        assertThat(lb.ips("default", "asks-loopback")).isEmpty();
        assertThat(lb.ips("default", "asks-127")).isEmpty();
    }
}

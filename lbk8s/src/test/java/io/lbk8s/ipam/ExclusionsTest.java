package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpRange;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.address.NodeNetworks;
import io.lbk8s.config.AddressPool;
import io.lbk8s.ipam.Exclusions.NodeAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which addresses of a pool are excluded, and why, for a kind-like cluster: two nodes on 172.18.0.0/16 (and
 * fc00::/64) behind gateway 172.18.0.1, the control plane 172.18.0.2 also the API server's endpoint.
 */
class ExclusionsTest {

    static NodeNetwork network(String mac, String v4, String v6) {
        return new NodeNetwork(
                List.of(
                        new NodeNetwork.Link("eth0", mac, NodeNetworks.prefixes(v4, v6)),
                        // kube-proxy's IPVS dummy interface: Service addresses as /32, never the node's
                        new NodeNetwork.Link(
                                "kube-ipvs0", "02:00:00:00:00:01", NodeNetworks.prefixes("172.18.255.200/32"))),
                NodeNetworks.gateways("172.18.0.1", "fc00::1"));
    }

    static final Exclusions.Inputs KIND = new Exclusions.Inputs(
            List.of(
                    new NodeAddress("control-plane", "InternalIP", "172.18.0.2"),
                    new NodeAddress("control-plane", "InternalIP", "fc00::2"),
                    new NodeAddress("control-plane", "Hostname", "control-plane"),
                    new NodeAddress("worker-1", "InternalIP", "172.18.0.3"),
                    new NodeAddress("worker-1", "ExternalIP", "198.51.100.7"),
                    new NodeAddress("worker-1", "InternalIP", "not an address")),
            Map.of(
                    "control-plane",
                    network("02:42:ac:12:00:02", "172.18.0.2/16", "fc00::2/64"),
                    "worker-1",
                    network("02:42:ac:12:00:03", "172.18.0.3/16", "fc00::3/64")),
            List.of("172.18.0.2"));

    static AddressPool pool(String... ranges) {
        return Fixtures.pool("p", ranges).build();
    }

    static Map<String, String> expect(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    static Stream<Arguments> pools() {
        return Stream.of(
                argumentSet(
                        "a pool equal to a node's InternalIP",
                        pool("172.18.0.3/32"),
                        expect("172.18.0.3", "InternalIP of node worker-1; address on eth0 of node worker-1")),
                argumentSet(
                        "a pool equal to the gateway",
                        pool("172.18.0.1"),
                        expect("172.18.0.1", "gateway of nodes control-plane and worker-1")),
                argumentSet(
                        "a pool equal to the API server's address",
                        pool("172.18.0.2"),
                        expect(
                                "172.18.0.2",
                                "InternalIP of node control-plane; address on eth0 of node control-plane; "
                                        + Exclusions.API_SERVER)),
                argumentSet(
                        "a pool equal to a node's ExternalIP",
                        pool("198.51.100.7"),
                        expect("198.51.100.7", "ExternalIP of node worker-1")),
                argumentSet(
                        "a pool over the whole node subnet loses exactly the excluded addresses",
                        pool("172.18.0.0/16"),
                        expect(
                                "172.18.0.0",
                                "network address of 172.18.0.0/16",
                                "172.18.0.1",
                                "gateway of nodes control-plane and worker-1",
                                "172.18.0.2",
                                "InternalIP of node control-plane; address on eth0 of node control-plane; "
                                        + Exclusions.API_SERVER,
                                "172.18.0.3",
                                "InternalIP of node worker-1; address on eth0 of node worker-1",
                                "172.18.255.255",
                                "broadcast address of 172.18.0.0/16")),
                argumentSet(
                        "a range ending one address below a node's IP: nothing excluded",
                        pool("172.18.0.4-172.18.255.254"),
                        expect()),
                argumentSet(
                        "a range starting one above the network address, ending one below broadcast, with nodes below",
                        pool("172.18.1.0-172.18.255.254"),
                        expect()),
                argumentSet("an address next to the node's, in another subnet", pool("172.19.0.3"), expect()),
                argumentSet(
                        "an IPv6 pool over the node subnet: the subnet-router anycast, no broadcast",
                        pool("fc00::/120"),
                        expect(
                                "fc00::",
                                "subnet-router anycast address of fc00::/64",
                                "fc00::1",
                                "gateway of nodes control-plane and worker-1",
                                "fc00::2",
                                "InternalIP of node control-plane; address on eth0 of node control-plane",
                                "fc00::3",
                                "address on eth0 of node worker-1")),
                argumentSet(
                        "the top of the IPv6 subnet is an ordinary address",
                        pool("fc00::ffff:ffff:ffff:ffff"),
                        expect()),
                argumentSet("a /32 on kube-ipvs0 is no node address", pool("172.18.255.200"), expect()),
                argumentSet(
                        "avoidBuggyIPs already forbids the network and broadcast addresses",
                        Fixtures.pool("p", "172.18.0.0/16").avoidBuggyIPs().build(),
                        expect(
                                "172.18.0.1",
                                "gateway of nodes control-plane and worker-1",
                                "172.18.0.2",
                                "InternalIP of node control-plane; address on eth0 of node control-plane; "
                                        + Exclusions.API_SERVER,
                                "172.18.0.3",
                                "InternalIP of node worker-1; address on eth0 of node worker-1")));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void excludesExactlyTheseAddressesOfThePool(AddressPool pool, Map<String, String> expected) {
        ExcludedAddresses excluded = Exclusions.of(KIND);

        Map<String, String> actual = new LinkedHashMap<>();
        UsableAddresses.excludedIn(pool, excluded).forEach((ip, why) -> actual.put(ip.toString(), why));
        assertThat(actual).containsExactlyEntriesOf(expected);
        assertThat(UsableAddresses.of(pool, excluded)).isEqualTo(UsableAddresses.of(pool) - expected.size());
    }

    @Test
    void smallSubnetsHaveNoNetworkOrBroadcastAddressButTheNodesAddress() {
        ExcludedAddresses excluded = Exclusions.of(new Exclusions.Inputs(
                List.of(),
                Map.of(
                        "n",
                        new NodeNetwork(
                                List.of(
                                        new NodeNetwork.Link(
                                                "p2p",
                                                "02:00:00:00:00:01",
                                                NodeNetworks.prefixes("10.9.0.0/31", "fd09::/127")),
                                        new NodeNetwork.Link(
                                                "tiny",
                                                "02:00:00:00:00:01",
                                                NodeNetworks.prefixes("10.8.0.1/30", "fd08::1/126"))),
                                List.of())),
                List.of()));

        assertThat(excluded.all().keySet())
                .extracting(Object::toString)
                .containsExactly("10.8.0.0", "10.8.0.1", "10.8.0.3", "10.9.0.0", "fd08::", "fd08::1", "fd09::");
    }

    @Test
    void manyNodesSharingAGatewayReadAsOneShortReason() {
        List<String> nodes = List.of("a", "b", "c", "d", "e");
        Map<String, NodeNetwork> networks = new LinkedHashMap<>();
        nodes.forEach(n -> networks.put(n, new NodeNetwork(List.of(), NodeNetworks.gateways("10.0.0.1"))));

        ExcludedAddresses excluded = Exclusions.of(new Exclusions.Inputs(List.of(), networks, List.of()));

        assertThat(excluded.why(ip("10.0.0.1"))).contains("gateway of nodes a, b, c and 2 more");
    }

    @Test
    void aLongListIsCutAfterTenAddressesWithACount() {
        ExcludedAddresses.Builder many = ExcludedAddresses.builder();
        for (int i = 1; i <= 25; i++) {
            many.add(ip("10.0.0." + i), "r" + i);
        }

        String text = ExcludedAddresses.describe(many.build().all());

        assertThat(text)
                .startsWith("10.0.0.1 (r1), 10.0.0.2 (r2), ")
                .endsWith("10.0.0.10 (r10) and 15 more")
                .doesNotContain("10.0.0.11");
    }

    @Test
    void eachSourceKeepsItsReasonWhenJoined() {
        ExcludedAddresses nodes = Exclusions.of(KIND);
        ExcludedAddresses conflicts = ExcludedAddresses.builder()
                .add(ip("172.18.0.3"), "answered by another host")
                .build();

        ExcludedAddresses both = nodes.plus(conflicts);

        assertThat(both.why(ip("172.18.0.3")))
                .contains("InternalIP of node worker-1; address on eth0 of node worker-1; answered by another host");
        assertThat(both.in(IpRange.cidr(ip("172.18.0.0"), 30, "172.18.0.0/30")).keySet())
                .extracting(Object::toString)
                .containsExactly("172.18.0.0", "172.18.0.1", "172.18.0.2", "172.18.0.3");
    }
}

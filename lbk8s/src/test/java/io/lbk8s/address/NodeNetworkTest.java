package io.lbk8s.address;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeNetworkTest {
    static final String EXAMPLE =
            "{\"links\":[{\"name\":\"eth0\",\"mac\":\"02:42:ac:12:00:02\",\"prefixes\":[\"172.18.0.2/16\",\"fc00::2/64\"]}],"
                    + "\"gateways\":[\"172.18.0.1\",\"fc00::1\"]}";

    static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    static NodeNetwork example() {
        return new NodeNetwork(
                List.of(new NodeNetwork.Link(
                        "eth0",
                        "02:42:AC:12:00:02",
                        List.of(
                                IpPrefix.parse("172.18.0.2/16").orElseThrow(),
                                IpPrefix.parse("fc00::2/64").orElseThrow()))),
                List.of(ip("172.18.0.1"), ip("fc00::1")));
    }

    @Test
    void writesExactlyTheAgreedJson() {
        assertThat(example().toAnnotation()).isEqualTo(EXAMPLE);
    }

    @Test
    void readsWhatItWrites() {
        assertThat(NodeNetwork.parse(EXAMPLE)).contains(example());
        assertThat(NodeNetwork.parse(example().toAnnotation())).contains(example());
        assertThat(example().macs()).containsExactly("02:42:ac:12:00:02");
        assertThat(example().holds(ip("fc00::2"))).isTrue();
        assertThat(example().holds(ip("172.18.0.1")))
                .as("a gateway is not the node's")
                .isFalse();
    }

    static Stream<Arguments> unreadable() {
        return Stream.of(
                Arguments.of((Object) null),
                Arguments.of(""),
                Arguments.of("not json"),
                Arguments.of("[]"),
                Arguments.of("{\"links\":{}}"),
                Arguments.of("{\"links\":[{\"name\":\"eth0\",\"mac\":\"02:42:ac:12:00\"}]}"),
                Arguments.of("{\"links\":[{\"mac\":\"02:42:ac:12:00:02\"}]}"),
                Arguments.of(
                        "{\"links\":[{\"name\":\"eth0\",\"mac\":\"02:42:ac:12:00:02\",\"prefixes\":[\"172.18.0.2\"]}]}"),
                Arguments.of(
                        "{\"links\":[{\"name\":\"eth0\",\"mac\":\"02:42:ac:12:00:02\",\"prefixes\":[\"172.18.0.2/33\"]}]}"),
                Arguments.of("{\"links\":[],\"gateways\":[\"300.1.1.1\"]}"),
                Arguments.of("{\"links\":[],\"gateways\":[1]}"));
    }

    @ParameterizedTest
    @MethodSource("unreadable")
    void refusesWhatIsNotANodeNetwork(String text) {
        assertThat(NodeNetwork.parse(text)).isEmpty();
    }

    @Test
    void missingListsAreEmpty() {
        assertThat(NodeNetwork.parse("{}")).contains(new NodeNetwork(List.of(), List.of()));
    }

    static Stream<Arguments> reservations() {
        return Stream.of(
                Arguments.of("172.18.0.1", Optional.of("172.18.0.1 is this node's gateway")),
                Arguments.of("fc00::1", Optional.of("fc00::1 is this node's gateway")),
                Arguments.of("172.18.0.2", Optional.of("172.18.0.2 is this node's address on eth0")),
                Arguments.of("fc00::2", Optional.of("fc00::2 is this node's address on eth0")),
                Arguments.of(
                        "172.18.0.0",
                        Optional.of("172.18.0.0 is the network address of 172.18.0.0/16, a subnet of this node")),
                Arguments.of(
                        "172.18.255.255",
                        Optional.of("172.18.255.255 is the broadcast address of 172.18.0.0/16, a subnet of this node")),
                Arguments.of(
                        "fc00::",
                        Optional.of("fc00:: is the subnet-router anycast address of fc00::/64, a subnet of this node")),
                Arguments.of("fc00::ffff:ffff:ffff:ffff", Optional.empty()), // IPv6 has no broadcast address
                Arguments.of("172.18.0.200", Optional.empty()),
                Arguments.of("172.19.0.0", Optional.empty()),
                Arguments.of("10.0.0.0", Optional.empty()));
    }

    @ParameterizedTest
    @MethodSource("reservations")
    void tellsWhichAddressesANodeMustNeverAnnounce(String address, Optional<String> reason) {
        assertThat(example().reserved(ip(address))).isEqualTo(reason);
    }

    @Test
    void pointToPointSubnetsHaveNoNetworkOrBroadcastAddress() {
        NodeNetwork p2p = new NodeNetwork(
                List.of(new NodeNetwork.Link(
                        "eth1",
                        "02:00:00:00:00:01",
                        List.of(IpPrefix.parse("10.0.0.0/31").orElseThrow()))),
                List.of());
        assertThat(p2p.reserved(ip("10.0.0.1"))).isEmpty();
        assertThat(p2p.reserved(ip("10.0.0.0"))).contains("10.0.0.0 is this node's address on eth1");
    }

    @Test
    void hostRoutesAreNotTheNodesAddresses() {
        // kube-proxy's IPVS dummy interface (if not excluded), node-local DNS, kube-vip: virtual addresses as /32, /128
        NodeNetwork node = new NodeNetwork(
                List.of(
                        new NodeNetwork.Link(
                                "eth0",
                                "02:00:00:00:00:01",
                                IpPrefix.parse("10.0.0.5/24").map(List::of).orElseThrow()),
                        new NodeNetwork.Link(
                                "kube-ipvs0",
                                "02:00:00:00:00:02",
                                List.of(
                                        IpPrefix.parse("10.0.0.200/32").orElseThrow(),
                                        IpPrefix.parse("fd00::200/128").orElseThrow()))),
                List.of());
        assertThat(node.reserved(ip("10.0.0.200"))).isEmpty();
        assertThat(node.reserved(ip("fd00::200"))).isEmpty();
        assertThat(node.holds(ip("10.0.0.200"))).isFalse();
        assertThat(node.holds(ip("10.0.0.5"))).isTrue();
        assertThat(node.reservations())
                .extracting(r -> r.address() + " " + r.role())
                .containsExactly(
                        "10.0.0.5 address on eth0",
                        "10.0.0.0 network address of 10.0.0.0/24",
                        "10.0.0.255 broadcast address of 10.0.0.0/24");
    }

    @Test
    void prefixesKnowTheirFirstAndLastAddress() {
        IpPrefix v4 = IpPrefix.parse("198.18.7.11/24").orElseThrow();
        assertThat(v4.network()).isEqualTo(ip("198.18.7.0"));
        assertThat(v4.last()).isEqualTo(ip("198.18.7.255"));
        IpPrefix v6 = IpPrefix.parse("fd00:1b8:7::11/56").orElseThrow();
        assertThat(v6.network()).isEqualTo(ip("fd00:1b8:7::"));
        assertThat(v6.last()).isEqualTo(ip("fd00:1b8:7:ff:ffff:ffff:ffff:ffff"));
        IpPrefix v6long = IpPrefix.parse("fd00::1:2/120").orElseThrow();
        assertThat(v6long.network()).isEqualTo(ip("fd00::1:0"));
        assertThat(v6long.last()).isEqualTo(ip("fd00::1:ff"));
        assertThat(IpPrefix.parse("0.0.0.0/0").orElseThrow().last()).isEqualTo(ip("255.255.255.255"));
    }
}

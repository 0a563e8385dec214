package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.address.IpRange;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RangeChoiceTest {

    static List<IpAddress> ips(String... texts) {
        return Arrays.stream(texts).map(t -> IpAddress.parse(t).orElseThrow()).toList();
    }

    static RangeChoice.KnownNetwork docker(String cidr, String gateway) {
        return new RangeChoice.KnownNetwork(
                IpPrefix.parse(cidr).orElseThrow().canonical(), IpAddress.parse(gateway), "Docker network test");
    }

    static RangeChoice.Choice choose(List<IpAddress> nodes, List<RangeChoice.KnownNetwork> known, List<IpRange> taken) {
        return RangeChoice.choose(new RangeChoice.Inputs(nodes, known, taken));
    }

    static List<String> addresses(RangeChoice.Choice choice) {
        assertThat(choice).isInstanceOf(RangeChoice.Choice.Chosen.class);
        return ((RangeChoice.Choice.Chosen) choice).addresses();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Talos on Docker, nodes .2-.4, no Docker socket      | 10.5.0.2,10.5.0.3,10.5.0.4   |                  |            | 10.5.0.200-10.5.0.250
            Talos on Docker, network known                      | 10.5.0.2,10.5.0.3,10.5.0.4   | 10.5.0.0/24      | 10.5.0.1   | 10.5.0.200-10.5.0.250
            kind, Docker network 172.18.0.0/16                  | 172.18.0.2,172.18.0.3        | 172.18.0.0/16    | 172.18.0.1 | 172.18.255.200-172.18.255.250
            kind without the socket: a /24 around the nodes     | 172.18.0.2,172.18.0.3        |                  |            | 172.18.0.200-172.18.0.250
            a /16 LAN                                           | 192.168.7.10                 | 192.168.0.0/16   | 192.168.0.1| 192.168.255.200-192.168.255.250
            a node inside the usual window                      | 10.0.0.2,10.0.0.220          |                  |            | 10.0.0.221-10.0.0.250
            a /28                                               | 10.9.0.18,10.9.0.19          | 10.9.0.16/28     | 10.9.0.17  | 10.9.0.28-10.9.0.30
            a /28 whose window is taken falls back below it     | 10.9.0.28,10.9.0.29,10.9.0.30| 10.9.0.16/28     | 10.9.0.17  | 10.9.0.25-10.9.0.27
            IPv6 /64                                            | fd00:5::2,fd00:5::3          |                  |            | fd00:5::ffff:ffff:ffff:ffc8-fd00:5::ffff:ffff:ffff:fffa
            IPv6 Docker /112                                    | fd00:18::2                   | fd00:18::/112    | fd00:18::1 | fd00:18::ffc8-fd00:18::fffa
            nodes in two /24s: the network holding both         | 10.1.0.5,10.1.1.5            |                  |            | 10.1.1.200-10.1.1.250
            """)
    void picksNearTheTopAwayFromNodesAndGateway(
            String name, String nodes, String cidr, String gateway, String expected) {
        List<RangeChoice.KnownNetwork> known = cidr == null ? List.of() : List.of(docker(cidr, gateway));
        assertThat(addresses(choose(ips(nodes.split(",")), known, List.of()))).containsExactly(expected);
    }

    @Test
    void dualStackGetsOneRangePerFamily() {
        assertThat(addresses(choose(ips("10.5.0.2", "fd00:5::2"), List.of(), List.of())))
                .containsExactly("10.5.0.200-10.5.0.250", "fd00:5::ffff:ffff:ffff:ffc8-fd00:5::ffff:ffff:ffff:fffa");
    }

    @Test
    void avoidsExistingPools() {
        var taken = ((IpRange.Parsed.Valid) IpRange.parse("10.5.0.200-10.5.0.230")).range();
        assertThat(addresses(choose(ips("10.5.0.2"), List.of(), List.of(taken))))
                .containsExactly("10.5.0.231-10.5.0.250");
    }

    @Test
    void aFullNetworkIsAClearError() {
        // a /29: .0 network, .1 gateway, .7 broadcast, .2-.6 nodes
        var choice = choose(
                ips("10.7.0.2", "10.7.0.3", "10.7.0.4", "10.7.0.5", "10.7.0.6"),
                List.of(docker("10.7.0.0/29", "10.7.0.1")),
                List.of());
        assertThat(choice).isInstanceOf(RangeChoice.Choice.NoRoom.class);
        assertThat(((RangeChoice.Choice.NoRoom) choice).message())
                .contains("10.7.0.0/29")
                .contains("no free address")
                .contains("--addresses");
    }

    @Test
    void noNodeAddressesIsAClearError() {
        assertThat(choose(List.of(), List.of(), List.of())).isInstanceOf(RangeChoice.Choice.NoRoom.class);
    }

    @Test
    void theChosenRangeNeverHoldsANodeTheGatewayOrTheNetworkEdges() {
        for (int prefix = 24; prefix <= 29; prefix++) {
            IpPrefix net = IpPrefix.parse("10.3.0.0/" + prefix).orElseThrow();
            List<IpAddress> nodes = IntStream.rangeClosed(2, 4)
                    .mapToObj(i -> net.at(java.math.BigInteger.valueOf(i)))
                    .toList();
            var chosen = (RangeChoice.Choice.Chosen)
                    choose(nodes, List.of(new RangeChoice.KnownNetwork(net, Optional.empty(), "t")), List.of());
            IpRange range = chosen.picks().getFirst().range();
            assertThat(nodes).noneMatch(range::contains);
            assertThat(range.contains(net.network())).isFalse();
            assertThat(range.contains(net.last())).isFalse();
            assertThat(range.contains(net.at(java.math.BigInteger.ONE))).isFalse();
        }
    }
}

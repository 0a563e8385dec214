package io.lbk8s.net.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import org.junit.jupiter.api.Test;

class DefaultGatewaysTest {
    static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    @Test
    void theIpv4DefaultRoutesNextHopsInHostByteOrder() {
        String table = """
                Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
                eth0	00000000	010012AC	0003	0	0	0	00000000	0	0	0
                eth0	000012AC	00000000	0001	0	0	0	0000FFFF	0	0	0
                eth1	0000000A	FE00000A	0003	0	0	0	00FFFFFF	0	0	0
                wg0	00000000	00000000	0001	0	0	0	00000000	0	0	0
                """;
        // 172.18.0.1 as the default route's gateway; a route to 10.0.0.0/24 via 10.0.0.254 is no default; a default
        // route without a gateway (a point-to-point link) has no next hop
        assertThat(DefaultGateways.parseIpv4(table)).containsExactly(ip("172.18.0.1"));
    }

    @Test
    void theIpv6DefaultRoutesNextHops() {
        String table = """
                fc000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
                00000000000000000000000000000000 00 00000000000000000000000000000000 00 fc000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0
                00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo
                00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
                """;
        assertThat(DefaultGateways.parseIpv6(table)).containsExactly(ip("fc00::1"));
    }

    @Test
    void unreadableTablesGiveNothing() {
        assertThat(DefaultGateways.parseIpv4("")).isEmpty();
        assertThat(DefaultGateways.parseIpv4("Iface\nnot a route line at all here\n"))
                .isEmpty();
        assertThat(DefaultGateways.parseIpv6("garbage")).isEmpty();
    }
}

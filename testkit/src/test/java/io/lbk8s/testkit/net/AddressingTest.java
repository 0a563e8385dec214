package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The address plan, names and subnet choice; no root needed. */
class AddressingTest {

    private final Addressing addressing = new Addressing(42);

    @Test
    void nodesClientAndHostFollowTheDocumentedPlan() {
        assertThat(Addressing.text(addressing.nodeIpv4(1))).isEqualTo("198.18.42.11");
        assertThat(Addressing.text(addressing.nodeIpv6(3))).isEqualTo("fd00:1b8:42::13");
        assertThat(addressing.nodeMac(2)).isEqualTo("02:1b:8a:00:00:02");
        assertThat(Addressing.text(addressing.clientIpv6())).isEqualTo("fd00:1b8:42::100");
        assertThat(Addressing.text(addressing.hostIpv4())).isEqualTo("198.18.42.254");
        assertThat(addressing.ipv4Subnet()).isEqualTo("198.18.42.0/24");
        assertThat(addressing.ipv6Subnet()).isEqualTo("fd00:1b8:42::/64");
    }

    @Test
    void poolsAreRangesForAnIpAddressPoolAndIndexInRangeOrder() {
        assertThat(addressing.ipv4Pool()).isEqualTo("198.18.42.200-198.18.42.250");
        assertThat(addressing.ipv6Pool()).isEqualTo("fd00:1b8:42::200-fd00:1b8:42::250");
        assertThat(Addressing.text(addressing.ipv4PoolAddress(50))).isEqualTo("198.18.42.250");
        assertThat(Addressing.text(addressing.ipv6PoolAddress(10))).isEqualTo("fd00:1b8:42::20a");
        assertThat(Addressing.text(addressing.ipv6PoolAddress(0x50))).isEqualTo("fd00:1b8:42::250");
        assertThatThrownBy(() -> addressing.ipv4PoolAddress(51)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void ipv6TextIsCompressedAsIpPrintsIt() {
        assertThat(Addressing.text(Addressing.literal("fd00:1b8:0:0:0:0:0:11"))).isEqualTo("fd00:1b8::11");
        assertThat(Addressing.text(Addressing.literal("ff02::1:ff00:250"))).isEqualTo("ff02::1:ff00:250");
        assertThat(Addressing.text(Addressing.literal("1:0:2:0:0:3:0:0"))).isEqualTo("1:0:2::3:0:0");
        assertThat(Addressing.text(Addressing.literal("::"))).isEqualTo("::");
    }

    @Test
    void namesStayUnderIfnamsizAndCarryTheId() {
        Names names = new Names("0a1b");
        assertThat(names.hostLeg()).isEqualTo("lbk8s0a1bh").hasSizeLessThanOrEqualTo(15);
        assertThat(names.namespaces(2))
                .containsExactly("lbk8s-0a1b-node-1", "lbk8s-0a1b-node-2", "lbk8s-0a1b-client", "lbk8s-0a1b-br");
        assertThat(Names.idOfNamespace("lbk8s-0a1b-node-12")).contains("0a1b");
        assertThat(Names.idOfNamespace("lbk8snet-smA")).isEmpty();
        assertThat(Names.idOfHostLeg("lbk8s0a1bh")).contains("0a1b");
    }

    @Test
    void aSubnetOverlappingAHostRouteOrAddressIsNotFree() {
        List<HostRoutes.Prefix> inUse =
                HostRoutes.inUse("""
        default via 192.0.2.1 dev eth0
        198.18.7.0/24 dev lbk8sab12h proto kernel scope link src 198.18.7.254
        198.19.0.0/16 via 192.0.2.1 dev eth0
        local 198.18.9.5 dev eth0 table local proto kernel scope host src 198.18.9.5
        """, "2: eth0    inet 198.18.11.3/28 brd 198.18.11.15 scope global eth0\n");
        assertThat(HostRoutes.free(7, inUse)).isFalse();
        assertThat(HostRoutes.free(9, inUse)).isFalse();
        assertThat(HostRoutes.free(11, inUse)).isFalse();
        assertThat(HostRoutes.free(8, inUse))
                .as("the default route does not count")
                .isTrue();
        assertThat(HostRoutes.free(1, HostRoutes.inUse("198.18.0.0/15 dev x\n", "")))
                .isFalse();
    }
}

package io.lbk8s.testkit.net;

import java.net.InetAddress;

/**
 * Addresses and MACs of one test network, all derived from the third IPv4 octet X:
 * IPv4 {@code 198.18.X.0/24} (RFC 2544 benchmarking range, never routed on the internet) and IPv6
 * {@code fd00:1b8:X::/64}, where X is written with the same decimal digits in both so they read alike.
 * Node N is {@code .1N} / {@code ::1N} with MAC {@code 02:1b:8a:00:00:0N}; the same digits in all
 * three make a capture readable at a glance.
 */
record Addressing(int octet) {

    static final int MAX_NODES = 89; // node N is .(10+N); .100 is the client
    static final int IPV4_POOL_FIRST = 200;
    static final int IPV4_POOL_LAST = 250;
    static final int IPV6_POOL_FIRST = 0x200;
    static final int IPV6_POOL_LAST = 0x250;

    Addressing {
        if (octet < 1 || octet > 254) {
            throw new IllegalArgumentException("third octet must be 1..254: " + octet);
        }
    }

    String ipv4Prefix() {
        return "198.18." + octet + ".";
    }

    String ipv6Prefix() {
        return "fd00:1b8:" + octet + "::";
    }

    String ipv4Subnet() {
        return ipv4Prefix() + "0/24";
    }

    String ipv6Subnet() {
        return ipv6Prefix() + "/64";
    }

    InetAddress nodeIpv4(int node) {
        return literal(ipv4Prefix() + (10 + checkNode(node)));
    }

    InetAddress nodeIpv6(int node) {
        return literal(ipv6Prefix() + (10 + checkNode(node)));
    }

    String nodeMac(int node) {
        return "02:1b:8a:00:00:%02d".formatted(checkNode(node));
    }

    /** The bridge side of node N's veth; distinct from the node's MAC so a capture shows which end sent. */
    String nodePortMac(int node) {
        return "02:1b:8a:00:01:%02d".formatted(checkNode(node));
    }

    InetAddress clientIpv4() {
        return literal(ipv4Prefix() + "100");
    }

    InetAddress clientIpv6() {
        return literal(ipv6Prefix() + "100");
    }

    String clientMac() {
        return "02:1b:8a:00:00:c1";
    }

    String clientPortMac() {
        return "02:1b:8a:00:01:c1";
    }

    InetAddress foreignIpv4() {
        return literal(ipv4Prefix() + "150");
    }

    InetAddress foreignIpv6() {
        return literal(ipv6Prefix() + "150");
    }

    String foreignMac() {
        return "02:1b:8a:00:00:f1";
    }

    String foreignPortMac() {
        return "02:1b:8a:00:01:f1";
    }

    /** A real cluster's control plane: {@code .5} / {@code ::5}, below the nodes. */
    InetAddress controlIpv4() {
        return literal(ipv4Prefix() + "5");
    }

    InetAddress controlIpv6() {
        return literal(ipv6Prefix() + "5");
    }

    String controlMac() {
        return "02:1b:8a:00:00:e1";
    }

    String controlPortMac() {
        return "02:1b:8a:00:01:e1";
    }

    /** The router's LAN address, {@code .1} / {@code ::1}: the nodes' gateway, as on a real LAN. */
    InetAddress routerIpv4() {
        return literal(ipv4Prefix() + "1");
    }

    InetAddress routerIpv6() {
        return literal(ipv6Prefix() + "1");
    }

    String routerMac() {
        return "02:1b:8a:00:00:a1";
    }

    String routerPortMac() {
        return "02:1b:8a:00:01:a1";
    }

    /** The router's uplink MAC; its address is {@code .1} of {@link #remoteIpv4Subnet()}. */
    String routerUplinkMac() {
        return "02:1b:8a:00:00:a2";
    }

    /**
     * The remote client's subnet: {@code 198.19.X.0/24} (the other half of RFC 2544's 198.18.0.0/15) and
     * {@code fd00:1b9:X::/64}. It exists only on the veth between router and remote client, never on the host, so it
     * cannot collide with a host route.
     */
    String remoteIpv4Prefix() {
        return "198.19." + octet + ".";
    }

    String remoteIpv6Prefix() {
        return "fd00:1b9:" + octet + "::";
    }

    String remoteIpv4Subnet() {
        return remoteIpv4Prefix() + "0/24";
    }

    String remoteIpv6Subnet() {
        return remoteIpv6Prefix() + "/64";
    }

    InetAddress routerUplinkIpv4() {
        return literal(remoteIpv4Prefix() + "1");
    }

    InetAddress routerUplinkIpv6() {
        return literal(remoteIpv6Prefix() + "1");
    }

    InetAddress remoteIpv4() {
        return literal(remoteIpv4Prefix() + "100");
    }

    InetAddress remoteIpv6() {
        return literal(remoteIpv6Prefix() + "100");
    }

    String remoteMac() {
        return "02:1b:8a:00:00:c2";
    }

    InetAddress hostIpv4() {
        return literal(ipv4Prefix() + "254");
    }

    String hostMac() {
        return "02:1b:8a:00:00:fe";
    }

    String hostPortMac() {
        return "02:1b:8a:00:01:fe";
    }

    String bridgeMac() {
        return "02:1b:8a:00:00:b0";
    }

    /** An address nobody uses or joins: the solicitations for it show whether the bridge still floods. */
    InetAddress unusedIpv6() {
        return literal(ipv6Prefix() + "ffff");
    }

    String ipv4Pool() {
        return ipv4Prefix() + IPV4_POOL_FIRST + "-" + ipv4Prefix() + IPV4_POOL_LAST;
    }

    String ipv6Pool() {
        return ipv6Prefix() + Integer.toHexString(IPV6_POOL_FIRST) + "-" + ipv6Prefix()
                + Integer.toHexString(IPV6_POOL_LAST);
    }

    InetAddress ipv4PoolAddress(int index) {
        checkIndex(index, IPV4_POOL_LAST - IPV4_POOL_FIRST);
        return literal(ipv4Prefix() + (IPV4_POOL_FIRST + index));
    }

    /** In range order (hexadecimal), as MetalLB hands them out: ::200, ::201, ... ::209, ::20a. */
    InetAddress ipv6PoolAddress(int index) {
        checkIndex(index, IPV6_POOL_LAST - IPV6_POOL_FIRST);
        return literal(ipv6Prefix() + Integer.toHexString(IPV6_POOL_FIRST + index));
    }

    private static void checkIndex(int index, int last) {
        if (index < 0 || index > last) {
            throw new IndexOutOfBoundsException("pool index must be 0.." + last + ": " + index);
        }
    }

    private static int checkNode(int node) {
        if (node < 1 || node > MAX_NODES) {
            throw new IndexOutOfBoundsException("node must be 1.." + MAX_NODES + ": " + node);
        }
        return node;
    }

    /** Parses a numeric literal; never a name lookup. */
    static InetAddress literal(String address) {
        try {
            return InetAddress.ofLiteral(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("not an address literal: " + address, e);
        }
    }

    /** For messages and command lines: no leading slash, IPv6 compressed (RFC 5952) as ip prints it. */
    static String text(InetAddress address) {
        if (!(address instanceof java.net.Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not compressed
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}

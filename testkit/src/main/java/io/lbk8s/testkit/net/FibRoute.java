package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.List;

/**
 * A route in a namespace's kernel forwarding table, as {@code ip -j route show} prints it: what actually forwards the
 * packets, whatever the routing daemon believes.
 *
 * @param prefix   {@code 198.18.7.200/32}; a host route, which ip prints as a bare address, with its /32 or /128
 * @param nextHops the gateways; several for an ECMP route
 * @param protocol who installed it: {@code bgp} (FRR), {@code bird}, {@code static} (the harness for GoBGP), ...
 */
public record FibRoute(String prefix, List<InetAddress> nextHops, String protocol) {

    public FibRoute {
        nextHops = List.copyOf(nextHops);
    }

    @Override
    public String toString() {
        return prefix + " via " + nextHops.stream().map(Addressing::text).toList() + " proto " + protocol;
    }
}

package io.lbk8s.bgp.session;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Optional;

/**
 * This node's other addresses on the interface that holds a session's local address: the next hop of the other
 * family for dual-stack peers, and the IPv6 link-local address RFC 2545 sends after a global next hop.
 */
record NodeAddresses(Optional<IpAddress> otherFamily, Optional<IpAddress> ipv6LinkLocal) {

    static NodeAddresses around(InetAddress local) {
        try {
            NetworkInterface link = NetworkInterface.getByInetAddress(local);
            if (link == null) {
                return new NodeAddresses(Optional.empty(), Optional.empty());
            }
            IpFamily other = IpAddress.of(local).isV4() ? IpFamily.IPv6 : IpFamily.IPv4;
            Optional<IpAddress> otherFamily = Optional.empty();
            Optional<IpAddress> linkLocal = Optional.empty();
            for (InterfaceAddress address : link.getInterfaceAddresses()) {
                InetAddress a = address.getAddress();
                if (a instanceof Inet6Address && a.isLinkLocalAddress()) {
                    linkLocal = linkLocal.or(() -> Optional.of(IpAddress.of(a)));
                } else if (!a.isLinkLocalAddress()
                        && !a.isLoopbackAddress()
                        && IpAddress.of(a).family() == other) {
                    otherFamily = otherFamily.or(() -> Optional.of(IpAddress.of(a)));
                }
            }
            return new NodeAddresses(otherFamily, linkLocal);
        } catch (SocketException e) {
            return new NodeAddresses(Optional.empty(), Optional.empty());
        }
    }
}

package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.link.PacketSocket;
import java.io.IOException;

/**
 * What the responder reports, for metrics (MetalLB's layer2 requests/responses/gratuitous counters). Requests are
 * counted only for announced addresses, as MetalLB counts them. Implementations must not block.
 */
public interface L2Listener {

    /** The counters a responder increments for {@code ip} on {@code iface}; asked when the address is announced. */
    AddressCounters counters(String iface, IpAddress ip);

    void gratuitousSent(String iface, IpAddress ip);

    /** A receive or send failed; the responder goes on. */
    default void failed(String iface, IOException error) {}

    /**
     * What the kernel counted on the raw socket for {@code etherType} (ARP, or IPv6 for NDP) since the last report:
     * the frames its filter let in, and of those the ones dropped because the receive queue was full (requests that
     * went unanswered). About once a second, from the socket's receive thread.
     */
    default void received(String iface, int etherType, PacketSocket.Stats counted) {}

    L2Listener NONE = new L2Listener() {
        @Override
        public AddressCounters counters(String iface, IpAddress ip) {
            return AddressCounters.NONE;
        }

        @Override
        public void gratuitousSent(String iface, IpAddress ip) {}
    };
}

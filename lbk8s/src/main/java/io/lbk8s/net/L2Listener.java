package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
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

    L2Listener NONE = new L2Listener() {
        @Override
        public AddressCounters counters(String iface, IpAddress ip) {
            return AddressCounters.NONE;
        }

        @Override
        public void gratuitousSent(String iface, IpAddress ip) {}
    };
}

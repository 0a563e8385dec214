package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import java.io.IOException;

/**
 * What the responder reports, for metrics (MetalLB's layer2 requests/responses/gratuitous counters). Called on the
 * receive threads: implementations must be quick and must not throw (a throw is caught and the packet dropped).
 * Requests are reported only for announced addresses, as MetalLB counts them.
 */
public interface L2Listener {

    void requestReceived(String iface, IpAddress ip);

    void responseSent(String iface, IpAddress ip);

    void gratuitousSent(String iface, IpAddress ip);

    /** A receive or send failed; the responder goes on. */
    default void failed(String iface, IOException error) {}

    L2Listener NONE = new L2Listener() {
        @Override
        public void requestReceived(String iface, IpAddress ip) {}

        @Override
        public void responseSent(String iface, IpAddress ip) {}

        @Override
        public void gratuitousSent(String iface, IpAddress ip) {}
    };
}

package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.List;

/**
 * What a test router is told, whichever implementation runs it: its AS and router id, the peers it accepts, whether it
 * offers graceful restart, and whether it spreads traffic over equal paths (ECMP). Each router class renders it into
 * its own configuration language.
 *
 * @param asn             its own AS, 1..4294967295 (4-octet AS numbers allowed)
 * @param routerId        its BGP identifier
 * @param peers           the nodes (or ranges of them) it peers with
 * @param gracefulRestart advertise the graceful-restart capability and keep a restarting peer's routes
 * @param multipath       install every equal path to a prefix (ECMP), not only the best one
 */
public record RouterConfig(
        long asn, InetAddress routerId, List<RouterPeer> peers, boolean gracefulRestart, boolean multipath) {

    public RouterConfig {
        RouterPeer.checkAsn(asn);
        peers = List.copyOf(peers);
    }

    /** Graceful restart off, multipath on: a router in front of a cluster that load-balances. */
    public static RouterConfig of(long asn, InetAddress routerId, List<RouterPeer> peers) {
        return new RouterConfig(asn, routerId, peers, false, true);
    }

    public RouterConfig withGracefulRestart(boolean enabled) {
        return new RouterConfig(asn, routerId, peers, enabled, multipath);
    }

    public RouterConfig withMultipath(boolean enabled) {
        return new RouterConfig(asn, routerId, peers, gracefulRestart, enabled);
    }

    public RouterConfig withPeers(List<RouterPeer> newPeers) {
        return new RouterConfig(asn, routerId, newPeers, gracefulRestart, multipath);
    }
}

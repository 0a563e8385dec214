package io.lbk8s.config;

import io.lbk8s.text.Quoted;
import java.util.HashSet;
import java.util.List;

/**
 * Two BGPPeers for one router from the same nodes: a node holds one session per peer address and port, so the one
 * defined later is refused. Peers with the same address and different node selectors are fine: the usual
 * top-of-rack design, where every rack's router answers on the same address.
 */
final class PeerConflicts {
    private PeerConflicts() {}

    /** Whether {@code peer} conflicts with none of {@code earlier}; if it does, the error is reported on it. */
    static boolean isFirst(BgpPeer peer, List<BgpPeer> earlier, List<ConfigProblem> problems) {
        for (BgpPeer other : earlier) {
            if (other.peerAddress().equals(peer.peerAddress())
                    && other.peerPort() == peer.peerPort()
                    && new HashSet<>(other.nodeSelectors()).equals(new HashSet<>(peer.nodeSelectors()))) {
                problems.add(ConfigProblem.error(
                        peer.origin(),
                        "peerAddress: BGPPeer " + Quoted.of(other.name()) + " already peers with " + peer.peerAddress()
                                + " port " + peer.peerPort() + " from the same nodes; a node holds one session"
                                + " with a router: give the two peers different nodeSelectors, or remove one"));
                return false;
            }
        }
        return true;
    }
}

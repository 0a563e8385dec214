package io.lbk8s.bgp.session;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.PeerSpec;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The peers this process has had an Established session with since it started. Kept apart from the sessions, which
 * a changed BGPPeer replaces: such a restart of one session is not a restart of the speaker.
 */
final class EstablishedPeers {
    private record Peer(IpAddress address, int port) {}

    private final Set<Peer> established = ConcurrentHashMap.newKeySet();

    boolean firstSinceStart(PeerSpec spec) {
        return !established.contains(peer(spec));
    }

    void established(PeerSpec spec) {
        established.add(peer(spec));
    }

    private static Peer peer(PeerSpec spec) {
        return new Peer(spec.address(), spec.port());
    }
}

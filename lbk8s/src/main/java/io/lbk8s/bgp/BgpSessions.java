package io.lbk8s.bgp;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * This node's BGP sessions, as the speaker drives them: the speaker says which peers to hold sessions with and which
 * routes each should have, and the sessions make it so (connecting, retrying, sending UPDATEs for what changed,
 * sending everything again after a reconnect or a route refresh).
 */
public interface BgpSessions extends AutoCloseable {

    /** The peers to hold sessions with: new ones are started, missing ones closed (Cease), changed ones restarted. */
    void configure(Collection<PeerSpec> peers);

    /** The routes peer {@code peer} should have from this node; what it has that is not here is withdrawn. */
    void advertise(String peer, Set<Route> routes);

    List<SessionStatus> statuses();

    /**
     * Ends every session as a node that stops on purpose does: a NOTIFICATION Cease (administrative shutdown), so
     * the routers withdraw this node's routes at once instead of after the hold time.
     */
    @Override
    void close();
}

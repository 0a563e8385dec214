package io.lbk8s.speaker;

import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionStatus;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts this node's BGP sessions for the speaker. {@code statusChanged} is called, from any thread, whenever a
 * session's {@link SessionStatus} changes (its state, its last error, its BFD state), so that the speaker reports it
 * at once instead of at its next look.
 */
@FunctionalInterface
public interface BgpSessionsFactory {

    BgpSessions start(Runnable statusChanged);

    /** Sessions that never connect: what the speaker has until the BGP implementation is plugged in here. */
    BgpSessionsFactory UNAVAILABLE = statusChanged -> new BgpSessions() {
        private final Logger log = LoggerFactory.getLogger(BgpSessionsFactory.class);
        private boolean warned;

        @Override
        public void configure(Collection<PeerSpec> peers) {
            if (!peers.isEmpty() && !warned) {
                warned = true;
                log.warn("BGPPeers are configured but this build has no BGP sessions; nothing is advertised");
            }
        }

        @Override
        public void advertise(String peer, Set<Route> routes) {}

        @Override
        public List<SessionStatus> statuses() {
            return List.of();
        }

        @Override
        public void close() {}
    };
}

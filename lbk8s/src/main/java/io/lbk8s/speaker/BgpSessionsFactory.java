package io.lbk8s.speaker;

import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.bgp.session.Md5Connector;
import io.lbk8s.bgp.session.Sessions;
import java.time.Clock;

/**
 * Starts this node's BGP sessions for the speaker. {@code statusChanged} is called, from any thread, whenever a
 * session's {@link SessionStatus} changes (its state, its last error, its BFD state), so that the speaker reports it
 * at once instead of at its next look.
 */
@FunctionalInterface
public interface BgpSessionsFactory {

    BgpSessions start(Runnable statusChanged);

    /** The real sessions: TCP (signed with TCP MD5 for a peer with a password), BFD where a profile asks for it. */
    BgpSessionsFactory SESSIONS = listening(0);

    /** Likewise, taking the peers' own connections on TCP {@code port} (0: none, the sessions only connect out). */
    static BgpSessionsFactory listening(int port) {
        return statusChanged ->
                Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> statusChanged.run(), port);
    }
}

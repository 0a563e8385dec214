package io.lbk8s.bgp.session;

import io.lbk8s.bfd.BfdSessions;
import java.io.IOException;

/**
 * The node's BFD, opened when the first peer with a BFD profile connects (UDP 3784 is then bound) and closed with
 * the sessions, so a node without BFD profiles never holds the port.
 */
final class NodeBfd implements AutoCloseable {
    private BfdSessions sessions;

    synchronized BfdSessions sessions() throws IOException {
        if (sessions == null) {
            sessions = BfdSessions.open();
        }
        return sessions;
    }

    @Override
    public synchronized void close() {
        if (sessions != null) {
            sessions.close();
            sessions = null;
        }
    }
}

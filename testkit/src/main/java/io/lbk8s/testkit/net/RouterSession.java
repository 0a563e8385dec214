package io.lbk8s.testkit.net;

import java.net.InetAddress;

/**
 * A router's view of one BGP session, as its own CLI reports it.
 *
 * @param neighbor    the peer's address
 * @param established whether the session is Established (routes flow)
 * @param state       the router's word for the state: Established, Active, Connect, OpenSent, Idle, ...
 * @param lastError   the last error the router reports for it (a NOTIFICATION sent or received, a reset reason), or
 *                    empty when it reports none
 */
public record RouterSession(InetAddress neighbor, boolean established, String state, String lastError) {

    @Override
    public String toString() {
        return Addressing.text(neighbor) + " " + state + (lastError.isEmpty() ? "" : " (" + lastError + ")");
    }
}

package io.lbk8s.testkit.net;

import java.net.InetAddress;

/**
 * A router's view of one BFD session.
 *
 * @param peer  the peer's address
 * @param up    whether the session is Up
 * @param state the router's word for the state: Up, Down, Init, AdminDown
 */
public record RouterBfdPeer(InetAddress peer, boolean up, String state) {

    @Override
    public String toString() {
        return Addressing.text(peer) + " " + state;
    }
}

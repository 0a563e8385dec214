package io.lbk8s.bgp.session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/** Opens the TCP connection a session runs on. */
@FunctionalInterface
public interface Connector {
    /**
     * @param source      the local address to bind, when the BGPPeer names one
     * @param md5Password sign every segment with this key (RFC 2385); the peer must use the same
     * @throws IOException with one sentence a user can act on (refused, timed out, no route)
     */
    Connection connect(
            InetSocketAddress remote, Optional<InetAddress> source, Optional<String> md5Password, Duration timeout)
            throws IOException;
}

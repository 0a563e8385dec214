package io.lbk8s.bgp.session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/** Opens the TCP connection a session runs on. */
@FunctionalInterface
public interface Connector {
    /**
     * @param source      the local address to bind, when the BGPPeer names one
     * @param md5Password sign every segment with this key (RFC 2385); the peer must use the same
     * @param ttl         the TTL (IPv6: hop limit) of every segment ({@link SessionTtl}); empty: the system's default
     * @throws IOException with one sentence a user can act on (refused, timed out, no route)
     */
    Connection connect(
            InetSocketAddress remote,
            Optional<InetAddress> source,
            Optional<String> md5Password,
            OptionalInt ttl,
            Duration timeout)
            throws IOException;

    /** With the system's default TTL. */
    default Connection connect(
            InetSocketAddress remote, Optional<InetAddress> source, Optional<String> md5Password, Duration timeout)
            throws IOException {
        return connect(remote, source, md5Password, OptionalInt.empty(), timeout);
    }
}

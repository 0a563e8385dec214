package io.lbk8s.bgp.session;

import io.lbk8s.net.link.TcpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The connector for every peer: a TCP socket of our own ({@link TcpSocket}), signed with TCP MD5 when the peer has a
 * password and plain otherwise, with the TTL the session asks for. Its connection's input is read on a platform thread
 * of its own (see {@link SocketConnection}), so a session may read it from a virtual thread.
 */
public final class Md5Connector implements Connector {

    @Override
    public Connection connect(
            InetSocketAddress remote,
            Optional<InetAddress> source,
            Optional<String> md5Password,
            OptionalInt ttl,
            Duration timeout)
            throws IOException {
        return SocketConnection.start(TcpSocket.connect(remote, source, md5Password, ttl, timeout));
    }
}

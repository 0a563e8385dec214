package io.lbk8s.bgp.session;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;

/** TCP without signatures, through java.net.Socket; a BGPPeer with a password needs the TCP MD5 connector instead. */
public final class PlainConnector implements Connector {

    @Override
    public Connection connect(
            InetSocketAddress remote, Optional<InetAddress> source, Optional<String> md5Password, Duration timeout)
            throws IOException {
        if (md5Password.isPresent()) {
            throw new IOException("has a password, and TCP MD5 needs the MD5 connector, which this one is not");
        }
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            if (source.isPresent()) {
                socket.bind(new InetSocketAddress(source.get(), 0));
            }
            socket.connect(remote, (int) Math.max(1, timeout.toMillis()));
            return new SocketConnection(socket);
        } catch (ConnectException e) {
            socket.close();
            throw new IOException("refused the connection to port " + remote.getPort(), e);
        } catch (SocketTimeoutException e) {
            socket.close();
            throw new IOException(
                    "did not answer on port " + remote.getPort() + " within " + timeout.toSeconds() + " s", e);
        } catch (IOException e) {
            socket.close();
            throw new IOException("could not be reached on port " + remote.getPort() + ": " + e.getMessage(), e);
        }
    }

    private record SocketConnection(Socket socket) implements Connection {
        @Override
        public InputStream input() {
            try {
                return socket.getInputStream();
            } catch (IOException e) {
                return InputStream.nullInputStream();
            }
        }

        @Override
        public OutputStream output() {
            try {
                return socket.getOutputStream();
            } catch (IOException e) {
                return OutputStream.nullOutputStream();
            }
        }

        @Override
        public InetSocketAddress local() {
            return (InetSocketAddress) socket.getLocalSocketAddress();
        }

        @Override
        public InetSocketAddress remote() {
            return (InetSocketAddress) socket.getRemoteSocketAddress();
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing a socket that failed is not news
            }
        }
    }
}

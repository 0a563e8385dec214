package io.lbk8s.testkit.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on loopback, between a component and the test API server, that a test can {@link #cut} (every
 * connection closed, new ones refused: the API server unreachable) and {@link #restore} on the same port.
 */
public final class LoopbackProxy implements AutoCloseable {
    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private ServerSocket listener;

    private LoopbackProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = listen(0);
        this.port = listener.getLocalPort();
        acceptFrom(listener);
    }

    /** Forwards a loopback port of its own to {@code target}. */
    public static LoopbackProxy to(InetSocketAddress target) throws IOException {
        return new LoopbackProxy(target);
    }

    /** The loopback port it listens on. */
    public int port() {
        return port;
    }

    /** The URL of an HTTP server behind this proxy, e.g. {@code http://127.0.0.1:41234}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true); // restore binds the port again while cut connections sit in TIME_WAIT
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        return socket;
    }

    private void acceptFrom(ServerSocket socket) {
        Thread.ofVirtual().name("proxy-accept-" + port).start(() -> {
            while (!socket.isClosed()) {
                try {
                    forward(socket.accept());
                } catch (IOException e) {
                    return; // closed by cut or close
                }
            }
        });
    }

    private void forward(Socket client) {
        Socket server = new Socket();
        open.add(client);
        open.add(server);
        try {
            server.connect(target, 2_000);
            // Each write goes on at once, as on a direct connection: with Nagle's algorithm, the second write of a
            // request waits for the delayed ACK of the first, 40 ms a request.
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(server);
            return;
        }
        Thread.ofVirtual().start(() -> copy(client, server));
        Thread.ofVirtual().start(() -> copy(server, client));
    }

    /** Copies until either side ends, then closes both (a half-closed HTTP connection is of no use to anyone). */
    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[16 << 10];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (SocketException e) {
            // closed by cut, close or the other side
        } catch (IOException e) {
            // as above: the connection is over either way
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    /** The API server becomes unreachable: every connection through the proxy is closed and new ones are refused. */
    public synchronized void cut() {
        closeQuietly(listener);
        open.forEach(LoopbackProxy::closeQuietly);
        open.clear();
    }

    /** Accepts connections again, on the same port. */
    public synchronized void restore() {
        if (!listener.isClosed()) {
            return;
        }
        try {
            listener = listen(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " again", e);
        }
        acceptFrom(listener);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing is all that is wanted
        }
    }

    @Override
    public void close() {
        cut();
    }
}

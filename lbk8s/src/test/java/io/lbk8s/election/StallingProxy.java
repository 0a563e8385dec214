package io.lbk8s.election;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback to the test API server that can stall: from {@link #stall()} on, it holds every connection
 * open and passes nothing, as a network partition does (requests hang instead of failing at once).
 */
final class StallingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int upstreamPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;
    private volatile boolean closed;

    StallingProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    void stall() {
        stalled = true;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket downstream = listener.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                sockets.addAll(List.of(downstream, upstream));
                Thread.ofVirtual().start(() -> pump(downstream, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, downstream));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0 && !closed; n = in.read(buffer)) {
                while (stalled && !closed) {
                    Thread.sleep(10); // holds the bytes back until the test ends
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // a side closed: the relay ends
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}

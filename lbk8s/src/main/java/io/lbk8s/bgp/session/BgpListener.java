package io.lbk8s.bgp.session;

import io.lbk8s.net.link.TcpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's listening socket for BGP (passive open, RFC 4271 8.2.1): a router that connects actively (FRR, BIRD and
 * GoBGP do) brings its session back as soon as it can reach the node, instead of at the speaker's next attempt. A
 * platform thread accepts (the wait is in native code) and hands each connection to {@code accepted}, which decides
 * whose it is.
 */
final class BgpListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BgpListener.class);
    private static final Duration ACCEPT_WAIT = Duration.ofMillis(500);

    private final TcpSocket socket;
    private final Consumer<TcpSocket> accepted;
    private final Thread loop;
    /** The TCP MD5 keys set on the socket, by peer address. */
    private final Map<InetAddress, String> keys = new HashMap<>();

    private volatile boolean closed;

    private BgpListener(TcpSocket socket, Consumer<TcpSocket> accepted) {
        this.socket = socket;
        this.accepted = accepted;
        this.loop = Thread.ofPlatform().daemon().name("bgp-listen").unstarted(this::run);
    }

    /**
     * Listens on {@code port} of every address of the node (IPv6 and IPv4 in one socket, else IPv4 alone); empty, after
     * one WARN line, when the port cannot be had: the sessions then only connect out.
     */
    static Optional<BgpListener> open(int port, Consumer<TcpSocket> accepted) {
        IOException failure;
        try {
            return Optional.of(on(new InetSocketAddress(InetAddress.getByAddress(new byte[16]), port), accepted));
        } catch (IOException e) {
            failure = e;
        }
        try {
            return Optional.of(on(new InetSocketAddress(InetAddress.getByAddress(new byte[4]), port), accepted));
        } catch (IOException e) {
            // the IPv6 socket's reason, unless the node has no IPv6: then it says nothing useful
            failure = failure.getMessage().contains("in use")
                            || failure.getMessage().contains("CAP_")
                    ? failure
                    : e;
        }
        log.warn(
                "BGP: cannot listen on TCP port {} ({}); the speaker stays connect-only: routers' connections to this"
                        + " node are refused and a session comes back at the speaker's next attempt (after 1 s, 2 s,"
                        + " 4 s... up to the BGPPeer's connectTime). --bgp-listen-port=0 turns listening off",
                port,
                failure.getMessage());
        return Optional.empty();
    }

    /** On one address (tests: loopback, port 0 for any). */
    static BgpListener on(InetSocketAddress local, Consumer<TcpSocket> accepted) throws IOException {
        BgpListener listener = new BgpListener(TcpSocket.listen(local, Map.of()), accepted);
        listener.loop.start();
        log.info("BGP: listening on {} for connections from the BGPPeers' addresses", local(listener.socket));
        return listener;
    }

    int port() {
        return socket.local().getPort();
    }

    /**
     * The TCP MD5 keys connections from each peer address must be signed with, set before the peer's SYN comes; a
     * peer not in {@code wanted} is accepted unsigned again. Returns the addresses whose key the kernel refused: their
     * connections must be refused, since they would be unsigned.
     */
    synchronized Set<InetAddress> keys(Map<InetAddress, String> wanted) {
        Set<InetAddress> refused = new java.util.HashSet<>();
        for (var it = keys.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!wanted.containsKey(entry.getKey())) {
                try {
                    socket.acceptSignedBy(entry.getKey(), Optional.empty());
                    it.remove();
                } catch (IOException e) {
                    log.warn("BGP: cannot remove the TCP MD5 key of {}: {}", entry.getKey(), e.getMessage());
                }
            }
        }
        for (var entry : wanted.entrySet()) {
            if (entry.getValue().equals(keys.get(entry.getKey()))) {
                continue;
            }
            try {
                socket.acceptSignedBy(entry.getKey(), Optional.of(entry.getValue()));
                keys.put(entry.getKey(), entry.getValue());
            } catch (IOException e) {
                refused.add(entry.getKey());
                log.warn(
                        "BGP: {}; connections from {} to this node are refused (the session still connects out)",
                        e.getMessage(),
                        entry.getKey().getHostAddress());
            }
        }
        return refused;
    }

    private void run() {
        while (!closed) {
            try {
                socket.accept(ACCEPT_WAIT).ifPresent(accepted);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                log.warn("BGP: {}", e.getMessage());
                try {
                    Thread.sleep(ACCEPT_WAIT); // e.g. out of descriptors: do not spin
                } catch (InterruptedException interrupted) {
                    return;
                }
            } catch (RuntimeException e) {
                log.warn("BGP: a connection to the listening socket failed", e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            loop.join(ACCEPT_WAIT.multipliedBy(4));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
    }

    private static String local(TcpSocket socket) {
        InetSocketAddress local = socket.local();
        String ip = io.lbk8s.address.IpAddress.of(local.getAddress()).toString();
        return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + local.getPort();
    }
}

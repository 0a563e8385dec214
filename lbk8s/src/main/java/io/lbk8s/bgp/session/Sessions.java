package io.lbk8s.bgp.session;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.net.link.TcpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's BGP sessions: one {@link PeerSession} per configured peer, and optionally a listening socket
 * ({@link BgpListener}) whose connections go to the session of the peer they come from.
 */
public final class Sessions implements BgpSessions {
    private static final Logger log = LoggerFactory.getLogger(Sessions.class);
    private static final Duration STOP_WAIT = Duration.ofSeconds(2);
    private static final int CEASE = Message.Notification.CEASE;

    /** Told of every change of a session's state, last error or advertised count, from the session's thread. */
    @FunctionalInterface
    public interface Listener {
        void changed(SessionStatus status);
    }

    private final Connector connector;
    private final Clock clock;
    private final Listener listener;
    private final Map<String, PeerSession> peers = new LinkedHashMap<>();
    private final Map<String, Set<Route>> routes = new HashMap<>();
    private final NodeBfd bfd = new NodeBfd();
    private final EstablishedPeers establishedPeers = new EstablishedPeers();
    private Optional<BgpListener> listening = Optional.empty();
    /** Peers with a password whose key the listening socket could not take: their connections are refused. */
    private Set<InetAddress> unsigned = Set.of();

    private Sessions(Connector connector, Clock clock, Listener listener) {
        this.connector = connector;
        this.clock = clock;
        this.listener = listener;
    }

    /** No sessions until {@link #configure}; {@code connector} opens TCP (plain or with TCP MD5). */
    public static Sessions start(Connector connector, Clock clock, Listener listener) {
        return new Sessions(connector, clock, listener);
    }

    /**
     * Likewise, and accepting the peers' connections on TCP {@code listenPort} of every address of the node; 0 does
     * not listen, nor does a port that cannot be had (said in one WARN line).
     */
    public static Sessions start(Connector connector, Clock clock, Listener listener, int listenPort) {
        Sessions sessions = new Sessions(connector, clock, listener);
        if (listenPort > 0) {
            sessions.listening = BgpListener.open(listenPort, sessions::accepted);
        }
        return sessions;
    }

    /** Listening on one address only (tests: loopback with port 0, see {@link #listeningPort}). */
    static Sessions listeningOn(InetSocketAddress local, Connector connector, Clock clock, Listener listener)
            throws IOException {
        Sessions sessions = new Sessions(connector, clock, listener);
        sessions.listening = Optional.of(BgpListener.on(local, sessions::accepted));
        return sessions;
    }

    /** The port the peers may connect to; empty when not listening. */
    public OptionalInt listeningPort() {
        return listening.map(l -> OptionalInt.of(l.port())).orElse(OptionalInt.empty());
    }

    /**
     * A connection to the listening socket goes to the session of the BGPPeer at its address (and, when the BGPPeer
     * names a sourceAddress, to that address); any other is closed at once.
     */
    private void accepted(TcpSocket socket) {
        InetAddress from = socket.remote().getAddress();
        IpAddress address = IpAddress.of(from);
        IpAddress to = IpAddress.of(socket.local().getAddress());
        PeerSession session;
        synchronized (this) {
            session = peers.values().stream()
                    .filter(p -> p.spec().address().equals(address))
                    .filter(p -> p.spec().sourceAddress().map(to::equals).orElse(true))
                    .findFirst()
                    .orElse(null);
            if (session != null && unsigned.contains(from)) {
                session = null;
            }
        }
        if (session == null) {
            log.debug("BGP: closed a connection from {} to {}: no BGPPeer of this node there", address, to);
            socket.close();
            return;
        }
        try {
            OptionalInt ttl = SessionTtl.of(session.spec());
            if (ttl.isPresent()) {
                socket.ttl(ttl.getAsInt());
            }
        } catch (IOException e) {
            log.warn("BGP peer {}: {}", session.spec().name(), e.getMessage());
        }
        session.accepted(SocketConnection.start(socket));
    }

    @Override
    public synchronized void configure(Collection<PeerSpec> specs) {
        Map<String, PeerSpec> wanted = new LinkedHashMap<>();
        specs.forEach(spec -> wanted.put(spec.name(), spec));
        Map<String, String> restartedBecause = new HashMap<>();
        for (var it = peers.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            PeerSpec now = wanted.get(entry.getKey());
            PeerSpec before = entry.getValue().spec();
            if (now != null
                    && now.sameSessionAs(before)
                    && entry.getValue().status().state() == SessionState.ESTABLISHED) {
                // only what the next connection reads changed: the session goes on. One still connecting starts
                // again, so that the new connectTime holds for the attempt under way (which may wait 120 s) too.
                entry.getValue().respec(now);
                continue;
            }
            // Cease subcodes of RFC 4486: the peer was removed (3) or its configuration changed (6)
            int subcode = now == null ? 3 : 6;
            entry.getValue().stop(Optional.of(Message.Notification.of(CEASE, subcode)), STOP_WAIT);
            it.remove();
            if (now == null) {
                routes.remove(entry.getKey());
            } else {
                restartedBecause.put(now.name(), restartReason(now, before));
            }
        }
        listening.ifPresent(l -> unsigned = l.keys(passwords(wanted.values())));
        for (PeerSpec spec : wanted.values()) {
            if (!peers.containsKey(spec.name())) {
                PeerSession peer = new PeerSession(
                        spec,
                        Optional.ofNullable(restartedBecause.get(spec.name())),
                        connector,
                        clock,
                        listener,
                        bfd,
                        establishedPeers);
                peers.put(spec.name(), peer);
                peer.start();
                peer.advertise(routes.getOrDefault(spec.name(), Set.of()));
            }
        }
    }

    /** The TCP MD5 key each peer address signs with; with two BGPPeers at one address, the first one's. */
    private static Map<InetAddress, String> passwords(Collection<PeerSpec> specs) {
        Map<InetAddress, String> keys = new HashMap<>();
        for (PeerSpec spec : specs) {
            if (spec.password().isPresent()) {
                keys.putIfAbsent(address(spec.address()), spec.password().get());
            }
        }
        return keys;
    }

    private static InetAddress address(IpAddress ip) {
        try {
            return InetAddress.getByAddress(ip.toBytes());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e); // cannot happen for 4 or 16 bytes
        }
    }

    /** The sentence a restarted session's status starts with, so that its BGPSessionDown Event says why. */
    static String restartReason(PeerSpec now, PeerSpec before) {
        return "BGPPeer \"" + now.name() + "\" changed (" + String.join(", ", now.changesFrom(before))
                + "): session restarted";
    }

    @Override
    public synchronized void advertise(String peer, Set<Route> wanted) {
        routes.put(peer, Set.copyOf(wanted));
        PeerSession session = peers.get(peer);
        if (session != null) {
            session.advertise(wanted);
        }
    }

    @Override
    public synchronized List<SessionStatus> statuses() {
        List<SessionStatus> statuses = new ArrayList<>();
        peers.values().forEach(p -> statuses.add(p.status()));
        return statuses;
    }

    /**
     * Cease / Administrative Shutdown to every peer, so routers drop our routes at once; with graceful restart,
     * TCP is closed without a NOTIFICATION so the router keeps the routes as stale until we are back (RFC 4724 4).
     */
    @Override
    public void close() {
        Optional<BgpListener> listened;
        synchronized (this) {
            listened = listening;
            listening = Optional.empty();
        }
        // first, and outside the lock, which a connection being handed over may wait for: none comes to a session
        // that is ending
        listened.ifPresent(BgpListener::close);
        stopAll();
    }

    private synchronized void stopAll() {
        for (PeerSession peer : peers.values()) {
            Optional<Message.Notification> farewell = peer.spec().gracefulRestart()
                    ? Optional.empty()
                    : Optional.of(Message.Notification.administrativeShutdown("lbk8s speaker stopping"));
            peer.stop(farewell, STOP_WAIT);
        }
        peers.clear();
        bfd.close();
    }
}

package io.lbk8s.bgp.session;

import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** This node's BGP sessions: one {@link PeerSession} per configured peer. */
public final class Sessions implements BgpSessions {
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

    private Sessions(Connector connector, Clock clock, Listener listener) {
        this.connector = connector;
        this.clock = clock;
        this.listener = listener;
    }

    /** No sessions until {@link #configure}; {@code connector} opens TCP (plain or with TCP MD5). */
    public static Sessions start(Connector connector, Clock clock, Listener listener) {
        return new Sessions(connector, clock, listener);
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
    public synchronized void close() {
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

package io.lbk8s.speaker;

import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test double of this node's BGP sessions: it connects nothing, records what the speaker asks of it, one line a
 * call ({@code configure [tor]}, {@code advertise tor: 10.0.0.1/32}, {@code close}), and reports the statuses the
 * test sets.
 */
final class RecordingSessions implements BgpSessions, BgpSessionsFactory {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<PeerSpec> configured = new CopyOnWriteArrayList<>();
    private volatile List<SessionStatus> statuses = List.of();
    private volatile Runnable statusChanged = () -> {};

    @Override
    public BgpSessions start(Runnable statusChanged) {
        this.statusChanged = statusChanged;
        return this;
    }

    @Override
    public void configure(Collection<PeerSpec> peers) {
        configured.clear();
        configured.addAll(peers);
        calls.add("configure " + peers.stream().map(PeerSpec::name).toList());
    }

    @Override
    public void advertise(String peer, Set<Route> routes) {
        calls.add("advertise " + peer + ": " + BgpFixtures.routes(routes));
    }

    @Override
    public List<SessionStatus> statuses() {
        return statuses;
    }

    /** The sessions now say {@code now}, and tell the speaker so, as real sessions do on a change. */
    void report(SessionStatus... now) {
        statuses = List.of(now);
        statusChanged.run();
    }

    @Override
    public void close() {
        calls.add("close");
    }

    List<String> calls() {
        return new ArrayList<>(calls);
    }
}

package io.lbk8s.peers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Speakers' failure detectors wired together without a network: heartbeats every 50 ms, delivered at once unless
 * the link between two nodes is cut one way or both, a node is frozen or has left. Time moves in 5 ms steps, so every
 * scenario is exact and repeatable.
 */
final class SimulatedSpeakers {
    static final long MS = 1_000_000;
    static final long INTERVAL = 50 * MS;

    final Membership.Settings settings;
    final Map<String, Membership> nodes = new LinkedHashMap<>();
    final Map<String, List<Membership.Event>> events = new HashMap<>();
    private final Map<String, Long> incarnation = new HashMap<>();
    private final Map<String, Long> sequence = new HashMap<>();
    private final Map<String, Long> nextSend = new HashMap<>();
    private final Map<String, Long> frozenAt = new HashMap<>();
    private final Set<String> gone = new HashSet<>();
    private final Set<List<String>> cut = new HashSet<>();
    long now = 1_000 * MS;

    SimulatedSpeakers(Membership.Settings settings, String... names) {
        this.settings = settings;
        for (String name : names) {
            start(name);
        }
    }

    /** A speaker (re)starts: a new incarnation that remembers nothing. */
    void start(String name) {
        Membership membership = new Membership(name, settings, now);
        nodes.put(name, membership);
        incarnation.merge(name, 1L, Long::sum);
        sequence.put(name, 0L);
        nextSend.put(name, now);
        gone.remove(name);
        frozenAt.remove(name);
        events.put(name, new ArrayList<>());
        nodes.values().forEach(m -> m.setPeers(nodes.keySet()));
    }

    void run(Duration duration) {
        long end = now + duration.toNanos();
        while (now < end) {
            now += 5 * MS;
            for (var entry : nodes.entrySet()) {
                String name = entry.getKey();
                if (running(name) && now >= nextSend.get(name)) {
                    send(name, PeerMessage.Kind.HEARTBEAT);
                    nextSend.put(name, now + INTERVAL);
                }
            }
            for (var entry : nodes.entrySet()) {
                if (running(entry.getKey())) {
                    entry.getValue().tick(now);
                    events.get(entry.getKey()).addAll(entry.getValue().drainEvents());
                }
            }
        }
    }

    private boolean running(String name) {
        return !gone.contains(name) && !frozenAt.containsKey(name);
    }

    private void send(String from, PeerMessage.Kind kind) {
        long seq = sequence.merge(from, 1L, Long::sum);
        PeerMessage message = nodes.get(from).heartbeat(kind, incarnation.get(from), seq, now / MS, now);
        for (var entry : nodes.entrySet()) {
            String to = entry.getKey();
            if (!to.equals(from) && running(to) && !cut.contains(List.of(from, to))) {
                entry.getValue()
                        .heard(
                                message,
                                now); // a frozen receiver's queue is dropped when it resumes, as the detector does
            }
        }
    }

    void freeze(String name) {
        frozenAt.put(name, now);
    }

    void resume(String name) {
        long paused = now - frozenAt.remove(name);
        nodes.get(name).stalled(now, paused);
        nextSend.put(name, now);
    }

    /** Killed, or its link down: it sends and hears nothing. */
    void kill(String name) {
        gone.add(name);
    }

    void leave(String name) {
        send(name, PeerMessage.Kind.LEAVING);
        gone.add(name);
    }

    void cut(String from, String to) {
        cut.add(List.of(from, to));
    }

    void heal() {
        cut.clear();
    }

    Membership.Snapshot snapshot(String name) {
        return nodes.get(name).snapshot(now);
    }

    Liveness liveness(String observer, String peer) {
        return snapshot(observer).liveness(peer);
    }

    boolean ready(String name) {
        return snapshot(name).ready();
    }

    /** Runs in 5 ms steps until the condition holds; returns how long that took. */
    Duration until(java.util.function.BooleanSupplier condition, Duration limit) {
        long start = now;
        while (!condition.getAsBoolean()) {
            if (now - start > limit.toNanos()) {
                throw new AssertionError("condition not met within " + limit);
            }
            run(Duration.ofMillis(5));
        }
        return Duration.ofNanos(now - start);
    }
}

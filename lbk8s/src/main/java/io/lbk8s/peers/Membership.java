package io.lbk8s.peers;

import io.lbk8s.peers.PeerMessage.Opinion;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The failure detector's decisions, pure: fed the messages a speaker hears and the passing of time (System.nanoTime
 * values), it says which peers are alive, whether this node itself may announce, and what to tell the peers.
 *
 * <p>A peer silent for {@code timeout} is dead. A peer heard again after that is held back for {@code rejoinHold},
 * doubled for every further failure within {@code flapWindow} (up to {@code maxHold}), so that a flapping node does
 * not pull its addresses back on every flap. Each speaker reports its opinion of every peer in its heartbeats; a node
 * that most of its peers report as silent or held steps back by itself, which keeps every speaker's choice of
 * leaders the same even when only some of them lost a node. Reports from a speaker that hears none of its peers
 * (isolated) are not counted: its view says more about its own link than about the others.
 *
 * <p>This node starts settling: it announces nothing until it has heard every peer once or {@code timeout} has
 * passed. When the detector's own thread did not run for a while (the process was frozen, the CPU starved), what it
 * heard before is stale, and it settles again; peers are not blamed for the silence it caused itself.
 */
public final class Membership {

    public record Settings(Duration timeout, Duration rejoinHold, Duration maxHold, Duration flapWindow) {
        public static final Settings DEFAULTS = new Settings(
                Duration.ofMillis(250), Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofMinutes(5));

        public Settings {
            if (timeout.isNegative()
                    || timeout.isZero()
                    || rejoinHold.isNegative()
                    || maxHold.compareTo(rejoinHold) < 0
                    || flapWindow.isNegative()) {
                throw new IllegalArgumentException(
                        "timeout must be positive, holds not negative, max hold ≥ rejoin hold");
            }
        }
    }

    public record PeerView(Liveness liveness, String detail) {}

    private static final String SILENT_DETAIL = "silent: missed its heartbeats for the detection time";
    private static final String LEFT_DETAIL = "left: its speaker stopped and said so";

    /**
     * @param ready    this node may announce
     * @param reason   why it may not, or "ready"
     * @param isolated it hears none of the peers it heard before
     * @param peers    per peer node, what the detector says of it
     * @param stalls   how many times the detector's thread stalled: after each, whatever this node announced before
     *                 is to be announced afresh (its peers may have taken it meanwhile, and clients moved to them)
     */
    public record Snapshot(boolean ready, String reason, boolean isolated, Map<String, PeerView> peers, int stalls) {
        public Snapshot {
            peers = Map.copyOf(peers);
        }

        public Liveness liveness(String node) {
            PeerView view = peers.get(node);
            return view == null ? Liveness.NOT_HEARD : view.liveness();
        }

        /**
         * Whether {@code node} was declared dead because it fell silent (not because it left): its fence lapsed two
         * intervals before that, so an address it had may be taken without waiting for it to fall quiet.
         */
        public boolean failedSilently(String node) {
            PeerView view = peers.get(node);
            return view != null && view.detail().equals(SILENT_DETAIL);
        }
    }

    /** What changed, for logs and metrics; not needed for the decisions themselves. */
    public sealed interface Event {
        record Heard(String peer, boolean again) implements Event {}

        record Suspected(String peer, long silentNanos) implements Event {}

        record SuspicionCleared(String peer, long silentNanos) implements Event {}

        record Silent(String peer, long silentNanos) implements Event {}

        record Left(String peer) implements Event {}

        record Restarted(String peer) implements Event {}

        record Stalled(long pausedNanos) implements Event {}
    }

    private enum Phase {
        UNHEARD,
        ALIVE,
        SILENT
    }

    private static final class Peer {
        final String name;
        final long id;
        Phase phase = Phase.UNHEARD;
        long incarnation;
        long lastHeard;
        long aliveSince;
        long holdUntil;
        boolean suspected;
        boolean left;
        boolean saysReady;
        boolean saysIsolated;
        Map<Long, Opinion> reports = Map.of();
        final Deque<Long> departures = new ArrayDeque<>();

        Peer(String name) {
            this.name = name;
            this.id = PeerId.of(name);
        }
    }

    private final String self;
    private final long selfId;
    private final Settings settings;
    private final long timeout;
    private final Map<String, Peer> peers = new TreeMap<>();
    private final List<Event> events = new ArrayList<>();
    private long settleUntil;
    private int stalls;
    private String settleReason;
    private final Set<String> heardSinceSettle = new HashSet<>();

    public Membership(String self, Settings settings, long now) {
        this.self = self;
        this.selfId = PeerId.of(self);
        this.settings = settings;
        this.timeout = settings.timeout().toNanos();
        settle(now, "starting: listening to its peers");
    }

    /** The speakers the API knows besides this one (their node names); new ones start unheard. */
    public void setPeers(Collection<String> names) {
        Set<String> wanted = new HashSet<>(names);
        wanted.remove(self);
        peers.keySet().retainAll(wanted);
        heardSinceSettle.retainAll(wanted);
        for (String name : wanted) {
            peers.computeIfAbsent(name, Peer::new);
        }
    }

    /** Whether {@code node} is a peer this detector listens to (messages of others are dropped as unknown). */
    public boolean knows(String node) {
        return peers.containsKey(node);
    }

    /** An authentic, live message from a known peer. */
    public void heard(PeerMessage message, long now) {
        Peer peer = peers.get(message.node());
        if (peer == null) {
            return;
        }
        heardSinceSettle.add(peer.name);
        if (message.kind() == PeerMessage.Kind.LEAVING) {
            if (peer.phase == Phase.ALIVE) {
                depart(peer, now);
                peer.left = true;
                events.add(new Event.Left(peer.name));
            }
            return;
        }
        if (peer.phase == Phase.ALIVE && peer.incarnation != message.incarnation()) {
            depart(peer, now); // it restarted faster than we could notice: it comes back like any failed node
            events.add(new Event.Restarted(peer.name));
        }
        if (peer.phase != Phase.ALIVE) {
            events.add(new Event.Heard(peer.name, peer.phase == Phase.SILENT));
            peer.phase = Phase.ALIVE;
            peer.aliveSince = now;
            peer.holdUntil = now + hold(peer, now);
            peer.incarnation = message.incarnation();
        } else if (peer.suspected) {
            events.add(new Event.SuspicionCleared(peer.name, now - peer.lastHeard));
        }
        peer.suspected = false;
        peer.left = false;
        peer.lastHeard = now;
        peer.saysReady = message.ready();
        peer.saysIsolated = message.isolated();
        Map<Long, Opinion> reports = new HashMap<>();
        message.reports().forEach(r -> reports.put(r.peer(), r.opinion()));
        peer.reports = reports;
    }

    /** Judges silences; call it whenever {@link #nextWake} comes, after reading every message that is waiting. */
    public void tick(long now) {
        for (Peer peer : peers.values()) {
            if (peer.phase != Phase.ALIVE) {
                continue;
            }
            long silent = now - peer.lastHeard;
            if (silent >= timeout) {
                depart(peer, now);
                events.add(new Event.Silent(peer.name, silent));
            } else if (silent >= timeout / 2 && !peer.suspected) {
                peer.suspected = true;
                events.add(new Event.Suspected(peer.name, silent));
            }
        }
    }

    /**
     * The detector's thread did not run for {@code pausedNanos}: whatever it heard before may be stale (peers may have
     * moved on), so it listens again before this node announces; and its peers' silence was its own doing.
     */
    public void stalled(long now, long pausedNanos) {
        events.add(new Event.Stalled(pausedNanos));
        stalls++;
        for (Peer peer : peers.values()) {
            if (peer.phase == Phase.ALIVE) {
                peer.lastHeard = now;
                peer.suspected = false;
                peer.reports = Map.of();
            }
        }
        settle(now, "resuming after a pause of " + pausedNanos / 1_000_000 + " ms: listening to its peers again");
    }

    private void settle(long now, String reason) {
        settleUntil = now + timeout;
        settleReason = reason;
        heardSinceSettle.clear();
    }

    private void depart(Peer peer, long now) {
        peer.phase = Phase.SILENT;
        peer.suspected = false;
        peer.reports = Map.of();
        peer.departures.addLast(now);
    }

    /** How long a peer heard again is held back: doubled for every failure within the flap window. */
    private long hold(Peer peer, long now) {
        long window = settings.flapWindow().toNanos();
        while (!peer.departures.isEmpty() && now - peer.departures.peekFirst() > window) {
            peer.departures.removeFirst();
        }
        int failures = peer.departures.size();
        if (failures == 0) {
            return 0;
        }
        long hold = settings.rejoinHold().toNanos();
        for (int i = 1; i < failures && hold < settings.maxHold().toNanos(); i++) {
            hold *= 2;
        }
        return Math.min(hold, settings.maxHold().toNanos());
    }

    /** The next moment a judgement may change without a message: a silence, a suspicion, a hold or the settling ending. */
    public long nextWake(long now) {
        long next = settled(now) ? Long.MAX_VALUE : settleUntil;
        for (Peer peer : peers.values()) {
            if (peer.phase != Phase.ALIVE) {
                continue;
            }
            next = Math.min(next, peer.lastHeard + (peer.suspected ? timeout : timeout / 2));
            if (peer.holdUntil > now) {
                next = Math.min(next, peer.holdUntil);
            }
        }
        return next;
    }

    private boolean settled(long now) {
        return now >= settleUntil || heardSinceSettle.containsAll(peers.keySet());
    }

    private boolean isolated() {
        boolean anySilent = false;
        for (Peer peer : peers.values()) {
            if (peer.phase == Phase.ALIVE) {
                return false;
            }
            anySilent |= peer.phase == Phase.SILENT;
        }
        return anySilent;
    }

    private Opinion opinionOf(Peer peer, long now) {
        return switch (peer.phase) {
            case ALIVE -> now < peer.holdUntil ? Opinion.HELD : Opinion.OK;
            case SILENT, UNHEARD -> Opinion.SILENT;
        };
    }

    public Snapshot snapshot(long now) {
        Map<String, PeerView> views = new TreeMap<>();
        for (Peer peer : peers.values()) {
            views.put(peer.name, view(peer, now));
        }
        String reason = selfReason(now);
        return new Snapshot(reason == null, reason == null ? "ready" : reason, isolated(), views, stalls);
    }

    private PeerView view(Peer peer, long now) {
        return switch (peer.phase) {
            case UNHEARD ->
                new PeerView(Liveness.NOT_HEARD, "not heard since this speaker started: judged by the API alone");
            case SILENT -> new PeerView(Liveness.DEAD, peer.left ? LEFT_DETAIL : SILENT_DETAIL);
            case ALIVE -> {
                if (now < peer.holdUntil) {
                    yield new PeerView(
                            Liveness.HELD,
                            "rejoining after a failure: held back for "
                                    + Duration.ofNanos(peer.holdUntil - peer.aliveSince)
                                            .toMillis() + " ms");
                } else if (peer.saysIsolated) {
                    yield new PeerView(Liveness.HELD, "hears none of its peers");
                } else if (!peer.saysReady) {
                    yield new PeerView(Liveness.HELD, "not ready: starting, resuming or held back by other peers");
                }
                yield new PeerView(Liveness.ALIVE, "alive");
            }
        };
    }

    /** Why this node may not announce now, or null. */
    private String selfReason(long now) {
        if (!settled(now)) {
            return settleReason;
        }
        int opinions = 0;
        int held = 0;
        int silent = 0;
        for (Peer reporter : peers.values()) {
            if (reporter.phase != Phase.ALIVE || reporter.saysIsolated) {
                continue;
            }
            Opinion opinion = reporter.reports.get(selfId);
            if (opinion == null) {
                continue; // it has not heard this node (yet): no opinion
            }
            opinions++;
            if (opinion == Opinion.HELD) {
                held++;
            } else if (opinion == Opinion.SILENT) {
                silent++;
            }
        }
        if (2 * (held + silent) > opinions) {
            return held >= silent
                    ? "held back by its peers after a failure, so that a flapping node does not pull addresses back"
                    : "most of its peers do not hear it";
        }
        return null;
    }

    /** What this node tells its peers now. */
    public PeerMessage heartbeat(PeerMessage.Kind kind, long incarnation, long sequence, long sentAtMillis, long now) {
        List<PeerMessage.Report> reports = new ArrayList<>();
        for (Peer peer : peers.values()) {
            if (peer.phase != Phase.UNHEARD) {
                reports.add(new PeerMessage.Report(peer.id, opinionOf(peer, now)));
            }
        }
        return new PeerMessage(
                kind, self, incarnation, sequence, sentAtMillis, selfReason(now) == null, isolated(), reports);
    }

    /** The events since the last call. */
    public List<Event> drainEvents() {
        List<Event> drained = List.copyOf(events);
        events.clear();
        return drained;
    }
}

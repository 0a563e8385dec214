package io.lbk8s.peers;

import io.lbk8s.net.Fence;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failure detector's imperative shell: one thread, at real-time priority where permitted, that sends every peer a
 * heartbeat each interval over UDP, reads what arrives, feeds {@link Membership} and renews the {@link Fence} that lets
 * this node answer ARP and NDP. Because the fence is renewed only with a heartbeat and lapses two intervals before the
 * peers' detection time, a node whose speaker freezes stops answering (in the kernel too) before anyone takes over.
 *
 * <p>It reads every waiting message before judging a silence, so its own late wake-up never blames a peer; a pause
 * long enough for the peers to have declared this node dead ({@link PeerSettings#stallTime}) is a stall (frozen,
 * starved): what is queued is then stale and is dropped unread, the fence stays lapsed, and {@link Membership}
 * listens again before this node announces. A shorter pause lets the fence lapse until the next heartbeat.
 *
 * <p>A flood on the port (datagrams are authenticated one by one) is bounded: beyond a budget per interval the thread
 * stops reading until the next interval, so it never spins at real-time priority.
 */
public final class PeerDetector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerDetector.class);
    private static final int MAX_DATAGRAM = 65_535;
    private static final int RECEIVE_BUFFER = 1 << 20;
    private static final long LOG_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    /** At most one round of reading and judging per millisecond, however fast datagrams come. */
    private static final long BATCH_NANOS = 1_000_000;

    /** Told on the detector's thread when what it says changes; must return quickly. */
    public interface Listener {
        void changed(Membership.Snapshot snapshot);
    }

    private final String self;
    private final PeerSettings settings;
    private final Fence fence;
    private final Listener listener;
    private final PeerMetrics metrics;
    private final DatagramChannel channel;
    private final Selector selector;
    private final long incarnation = new SecureRandom().nextLong();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<PeerCodec.Drop, Long> lastDropLog = new HashMap<>();
    private volatile PeerKeys keys;
    private volatile Map<String, InetSocketAddress> addresses = Map.of();
    private volatile Membership.Snapshot snapshot;
    private volatile String realtimeProblem = "not started";
    private volatile int stallsHandled;
    private volatile boolean running = true;
    private final Thread thread;

    private PeerDetector(
            String self,
            PeerSettings settings,
            Fence fence,
            Listener listener,
            MeterRegistry registry,
            DatagramChannel channel,
            Selector selector) {
        this.self = self;
        this.settings = settings;
        this.fence = fence;
        this.listener = listener;
        this.metrics = new PeerMetrics(registry);
        this.channel = channel;
        this.selector = selector;
        this.snapshot = new Membership(self, settings.membership(), System.nanoTime()).snapshot(System.nanoTime());
        this.thread = Thread.ofPlatform().name("peer-detector").daemon().unstarted(this::run);
    }

    /** Binds the port (every address, both families) and starts the thread; the fence stays lapsed until this node is ready. */
    public static PeerDetector start(
            String self, PeerSettings settings, Fence fence, Listener listener, MeterRegistry registry)
            throws IOException {
        DatagramChannel channel = DatagramChannel.open();
        Selector selector = null;
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
            channel.bind(new InetSocketAddress(settings.port()));
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
        } catch (BindException e) {
            channel.close();
            throw new IOException(
                    "cannot listen on UDP port " + settings.port() + " for the failure detector: " + e.getMessage()
                            + " (another process uses it? choose another with --peer-port)",
                    e);
        } catch (IOException e) {
            channel.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
        PeerDetector detector = new PeerDetector(self, settings, fence, listener, registry, channel, selector);
        detector.thread.start();
        return detector;
    }

    /** The keys from the Secret; until the first ones arrive nothing is sent and nothing is believed. */
    public void keys(PeerKeys keys) {
        this.keys = keys;
    }

    /**
     * The speaker has withdrawn everything it answered for before stall number {@code stalls} (see
     * {@link Membership.Snapshot#stalls}): what it answers from now on it has decided afresh, so the fence may be
     * renewed again. Until this is called after a stall, the node answers nothing, not even what it still leads in its
     * frozen view.
     */
    public void stallHandled(int stalls) {
        stallsHandled = stalls;
        selector.wakeup();
    }

    /** The peers' node names and where their speakers listen. */
    public void peers(Map<String, InetSocketAddress> peers) {
        if (!peers.equals(addresses)) {
            addresses = Map.copyOf(peers);
            selector.wakeup();
        }
    }

    public Membership.Snapshot snapshot() {
        return snapshot;
    }

    /** Why the thread does not run at real-time priority, or empty when it does. */
    public Optional<String> realtimeProblem() {
        return Optional.ofNullable(realtimeProblem);
    }

    public int port() {
        try {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        } catch (IOException e) {
            return settings.port();
        }
    }

    private void run() {
        RealtimePriority.niceWholeProcess(PeerSettings.NICE)
                .ifPresent(problem -> log.warn(
                        "the speaker runs at the normal nice value: lowering it {}; its JVM may pause longer under CPU load",
                        problem));
        realtimeProblem = RealtimePriority.fifo(PeerSettings.REALTIME_PRIORITY).orElse(null);
        metrics.realtime(realtimeProblem == null);
        if (realtimeProblem == null) {
            log.info(
                    "failure detector on UDP port {} at real-time priority (SCHED_FIFO {})",
                    port(),
                    PeerSettings.REALTIME_PRIORITY);
        } else {
            log.warn(
                    "failure detector on UDP port {} at normal priority: real-time scheduling {}; under heavy CPU load it may"
                            + " take a starved peer for a dead one",
                    port(),
                    realtimeProblem);
        }
        Loop loop = new Loop();
        while (running) {
            try {
                loop.once();
            } catch (IOException | RuntimeException e) {
                if (running) {
                    log.error("failure detector: {}", e.toString());
                    LockSupport.parkNanos(settings.interval().toNanos());
                }
            }
        }
    }

    /** The thread's own state; nothing here is shared. */
    private final class Loop {
        final long interval = settings.interval().toNanos();
        final long fenceTime = settings.fenceTime().toNanos();
        final long stallTime = settings.stallTime().toNanos();
        final Membership membership = new Membership(self, settings.membership(), System.nanoTime());
        final ReplayGuard guard = new ReplayGuard(settings.clockWindow().toMillis());
        final PeerCodec codec = new PeerCodec();
        final ByteBuffer buffer = ByteBuffer.allocate(MAX_DATAGRAM);
        final int budgetBase = 4096; // datagrams read per interval (80,000 a second at 50 ms)
        Map<String, InetSocketAddress> applied = Map.of();
        long nextSend = System.nanoTime();
        long plannedWake = nextSend;
        long lastWake = nextSend;
        long budgetResetAt = nextSend;
        int budget;
        boolean wasReady;
        boolean wasAnswering;

        void once() throws IOException {
            long now = System.nanoTime();
            long wakeAt = Math.min(nextSend, membership.nextWake(now));
            if (budget <= 0 && now < budgetResetAt) {
                LockSupport.parkNanos(
                        Math.min(wakeAt, budgetResetAt) - now); // flooded: stop reading until the next interval
                plannedWake = Math.min(wakeAt, budgetResetAt);
            } else if (wakeAt > now) {
                selector.select(Math.max(1, (wakeAt - now + 999_999) / 1_000_000));
                selector.selectedKeys().clear();
                plannedWake = wakeAt;
                long early = BATCH_NANOS - (System.nanoTime() - lastWake);
                if (early > 0) {
                    LockSupport.parkNanos(
                            early); // a datagram woke us right after the last round: take the next ones with it
                }
            }
            now = System.nanoTime();
            long paused = now - lastWake;
            lastWake = now;
            if (now >= plannedWake) {
                metrics.woke(now - plannedWake);
            }
            Map<String, InetSocketAddress> current = addresses;
            if (current != applied) {
                applied.keySet().stream().filter(n -> !current.containsKey(n)).forEach(guard::forget);
                membership.setPeers(current.keySet());
                applied = current;
            }
            if (now >= budgetResetAt) {
                budget = budgetBase + 8 * applied.size();
                budgetResetAt = now + interval;
            }
            if (paused > stallTime) {
                fence.lapse();
                int stale = discardQueued();
                membership.stalled(now, paused);
                log.warn(
                        "the failure detector did not run for {} ms (frozen or starved): stopped answering, dropped {} stale"
                                + " message(s), listening to the peers again",
                        paused / 1_000_000,
                        stale);
            } else {
                receiveQueued(now);
            }
            membership.tick(now);
            Membership.Snapshot next = membership.snapshot(now);
            // After a stall the node answers again only once its speaker has withdrawn what it answered before (see
            // stallHandled): until then the fence stays lapsed, in the kernel too.
            boolean mayAnswer = next.ready() && next.stalls() == stallsHandled;
            if (now >= nextSend || next.ready() != wasReady || mayAnswer != wasAnswering) {
                sendHeartbeats(now);
                nextSend = now + interval;
                if (mayAnswer) {
                    fence.renewUntil(now + fenceTime);
                }
            }
            if (!mayAnswer && wasAnswering) {
                fence.lapse();
            }
            wasReady = next.ready();
            wasAnswering = mayAnswer;
            for (Membership.Event event : membership.drainEvents()) {
                metrics.event(event);
                logEvent(event);
            }
            if (!next.equals(snapshot)) {
                if (next.ready() != snapshot.ready() || !next.reason().equals(snapshot.reason())) {
                    log.info(
                            "this node {}",
                            next.ready()
                                    ? "may announce: its peers agree it is alive"
                                    : "announces nothing: " + next.reason());
                }
                snapshot = next;
                metrics.snapshot(next);
                listener.changed(next);
            }
        }

        private void receiveQueued(long now) throws IOException {
            PeerKeys current = keys;
            while (budget > 0) {
                buffer.clear();
                if (channel.receive(buffer) == null) {
                    return;
                }
                budget--;
                metrics.received(buffer.position());
                if (current == null) {
                    metrics.dropped(
                            PeerCodec.Drop
                                    .FORGED); // before the Secret is read: nothing can be believed, nothing is wrong
                    continue;
                }
                switch (codec.decode(buffer.array(), buffer.position(), current)) {
                    case PeerCodec.Decoded.Rejected(PeerCodec.Drop reason, String detail) -> drop(reason, detail);
                    case PeerCodec.Decoded.Valid(PeerMessage message) -> accept(message, now);
                }
            }
        }

        private void accept(PeerMessage message, long now) {
            if (message.node().equals(self)) {
                return; // our own, looped back by a misconfiguration
            }
            if (!membership.knows(message.node())) {
                if (applied.isEmpty()) {
                    metrics.dropped(
                            PeerCodec.Drop.UNKNOWN_SENDER); // before the first list of peers: not worth a warning
                } else {
                    drop(
                            PeerCodec.Drop.UNKNOWN_SENDER,
                            "from node " + message.node() + ", which runs no speaker we know of");
                }
                return;
            }
            Optional<PeerCodec.Drop> replay = guard.check(message, System.currentTimeMillis());
            if (replay.isPresent()) {
                drop(
                        replay.get(),
                        replay.get() == PeerCodec.Drop.STALE
                                ? "from node " + message.node() + ", whose clock is "
                                        + (message.sentAtMillis() - System.currentTimeMillis())
                                        + " ms from ours (speakers' clocks must agree within "
                                        + settings.clockWindow().toSeconds() + " s: check NTP)"
                                : "from node " + message.node());
                return;
            }
            metrics.accepted();
            membership.heard(message, now);
        }

        private int discardQueued() throws IOException {
            int count = 0;
            while (count < 100_000) {
                buffer.clear();
                if (channel.receive(buffer) == null) {
                    break;
                }
                count++;
            }
            return count;
        }

        private void sendHeartbeats(long now) {
            PeerKeys current = keys;
            if (current == null || applied.isEmpty()) {
                return;
            }
            PeerMessage message = membership.heartbeat(
                    PeerMessage.Kind.HEARTBEAT,
                    incarnation,
                    sequence.incrementAndGet(),
                    System.currentTimeMillis(),
                    now);
            sendToAll(codec.encode(message, current), applied);
        }

        private void drop(PeerCodec.Drop reason, String detail) {
            metrics.dropped(reason);
            long now = System.nanoTime();
            Long last = lastDropLog.get(reason);
            if (last == null || now - last > LOG_EVERY_NANOS) {
                lastDropLog.put(reason, now);
                log.warn(
                        "dropped a datagram on the peer port ({}): {}{}",
                        reason.name().toLowerCase(Locale.ROOT),
                        detail,
                        reason == PeerCodec.Drop.FORGED
                                ? "; if it comes from a speaker, its key differs (Secret " + settings.secretName() + ")"
                                : "");
            }
        }

        private void logEvent(Membership.Event event) {
            switch (event) {
                case Membership.Event.Silent s ->
                    log.info("peer {} declared dead: silent for {} ms", s.peer(), s.silentNanos() / 1_000_000);
                case Membership.Event.Left l -> log.info("peer {} left (its speaker stopped)", l.peer());
                case Membership.Event.Restarted r -> log.info("peer {} restarted", r.peer());
                case Membership.Event.Heard h -> log.info("peer {} heard{}", h.peer(), h.again() ? " again" : "");
                case Membership.Event.Suspected s ->
                    log.debug("peer {} silent for {} ms", s.peer(), s.silentNanos() / 1_000_000);
                case Membership.Event.SuspicionCleared c ->
                    log.debug("peer {} heard after {} ms", c.peer(), c.silentNanos() / 1_000_000);
                case Membership.Event.Stalled s -> {} // logged where it is noticed
            }
        }
    }

    private void sendToAll(byte[] datagram, Map<String, InetSocketAddress> peers) {
        for (InetSocketAddress peer : peers.values()) {
            try {
                if (channel.send(ByteBuffer.wrap(datagram), peer) > 0) {
                    metrics.sent(datagram.length);
                } else {
                    metrics.sendFailed();
                }
            } catch (IOException e) {
                metrics.sendFailed(); // no route while the link is down: the peers will notice our silence
            }
        }
    }

    /**
     * A graceful stop: no heartbeat after this, then each peer is told twice (a datagram may be lost) so that it takes
     * over at once, and this node stops answering.
     */
    public void leave() {
        stopThread();
        fence.lapse();
        PeerKeys current = keys;
        if (current == null) {
            return;
        }
        PeerCodec codec = new PeerCodec();
        for (int i = 0; i < 2; i++) { // each with its own sequence number: a copy of the first would be a replay
            PeerMessage leaving = new PeerMessage(
                    PeerMessage.Kind.LEAVING,
                    self,
                    incarnation,
                    sequence.incrementAndGet(),
                    System.currentTimeMillis(),
                    false,
                    false,
                    List.of());
            sendToAll(codec.encode(leaving, current), addresses);
        }
        log.info("told {} peer(s) this speaker is leaving", addresses.size());
    }

    private void stopThread() {
        running = false;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stopThread();
        try {
            selector.close();
            channel.close();
        } catch (IOException e) {
            log.debug("closing the peer port: {}", e.getMessage());
        }
    }
}

package io.lbk8s.peers;

import io.lbk8s.metrics.Meters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The failure detector's Prometheus metrics: its traffic, what it dropped and why, its judgements of each peer, and
 * how punctual its own thread is (a late thread is what makes detectors flap).
 */
final class PeerMetrics {
    private final Meters meters;
    private final Counter sent;
    private final Counter sentBytes;
    private final Counter received;
    private final Counter receivedBytes;
    private final Counter sendErrors;
    private final Counter stalls;
    private final Timer lateness;
    private final Timer silence;
    private final Map<PeerCodec.Drop, Counter> dropped = new ConcurrentHashMap<>();
    private final Map<String, Counter> suspicions = new ConcurrentHashMap<>();
    private final Map<String, Counter> failures = new ConcurrentHashMap<>();
    private final MultiGauge peerStates;
    private final AtomicInteger ready;
    private final AtomicInteger realtime;

    PeerMetrics(MeterRegistry registry) {
        meters = new Meters(registry);
        sent = meters.counter("lbk8s.peers.messages.sent", "Messages sent to peer speakers");
        sentBytes = meters.counter("lbk8s.peers.bytes.sent", "UDP payload bytes sent to peer speakers");
        received =
                meters.counter("lbk8s.peers.messages.received", "Authentic, live messages received from peer speakers");
        receivedBytes = meters.counter(
                "lbk8s.peers.bytes.received", "UDP payload bytes received on the peer port, dropped or not");
        sendErrors =
                meters.counter("lbk8s.peers.send.errors", "Messages the kernel refused to send (no route, link down)");
        stalls = meters.counter(
                "lbk8s.peers.stalls",
                "Times the detector's thread did not run long enough for its peers to declare this node dead (frozen, starved)");
        lateness = Timer.builder("lbk8s.peers.wake.lateness")
                .description("How late the detector's thread woke up")
                .register(registry);
        silence = Timer.builder("lbk8s.peers.failure.silence")
                .description("How long a peer had been silent when this node declared it failed: the detection part"
                        + " of a failover, before this node takes its addresses")
                .register(registry);
        for (PeerCodec.Drop drop : PeerCodec.Drop.values()) {
            dropped.put(
                    drop,
                    meters.counter(
                            "lbk8s.peers.dropped",
                            "Datagrams dropped on the peer port, by reason",
                            "reason",
                            drop.name().toLowerCase(Locale.ROOT).replace('_', '-')));
        }
        peerStates =
                meters.gauges("lbk8s.peers.peer.state", "1 for each peer speaker and what the detector says of it");
        ready = meters.gauge(
                "lbk8s.peers.ready",
                "1 while the detector lets this node announce, 0 while starting, resuming or held back");
        realtime = meters.gauge(
                "lbk8s.peers.realtime", "1 when the detector's thread runs under real-time scheduling (SCHED_FIFO)");
    }

    void sent(int bytes) {
        sent.increment();
        sentBytes.increment(bytes);
    }

    void sendFailed() {
        sendErrors.increment();
    }

    void received(int bytes) {
        receivedBytes.increment(bytes);
    }

    void accepted() {
        received.increment();
    }

    void dropped(PeerCodec.Drop reason) {
        dropped.get(reason).increment();
    }

    void woke(long lateNanos) {
        lateness.record(Math.max(0, lateNanos), TimeUnit.NANOSECONDS);
    }

    void realtime(boolean on) {
        realtime.set(on ? 1 : 0);
    }

    void event(Membership.Event event) {
        switch (event) {
            case Membership.Event.Suspected s ->
                counter(
                                suspicions,
                                "lbk8s.peers.suspicions",
                                "Peers silent for half the detection time (a failure, or a near miss)",
                                s.peer(),
                                null)
                        .increment();
            case Membership.Event.Silent s -> {
                failure(s.peer(), "silent");
                silence.record(s.silentNanos(), TimeUnit.NANOSECONDS);
            }
            case Membership.Event.Left l -> failure(l.peer(), "left");
            case Membership.Event.Restarted r -> failure(r.peer(), "restarted");
            case Membership.Event.Stalled s -> stalls.increment();
            case Membership.Event.Heard h -> {}
            case Membership.Event.SuspicionCleared c -> {}
        }
    }

    private void failure(String peer, String how) {
        counter(
                        failures,
                        "lbk8s.peers.failures",
                        "Peers declared gone: silent for the detection time, left, or restarted",
                        peer,
                        how)
                .increment();
    }

    private Counter counter(Map<String, Counter> map, String name, String help, String peer, String how) {
        return map.computeIfAbsent(
                peer + "/" + how,
                k -> how == null
                        ? meters.counter(name, help, "peer", peer)
                        : meters.counter(name, help, "peer", peer, "how", how));
    }

    void snapshot(Membership.Snapshot snapshot) {
        ready.set(snapshot.ready() ? 1 : 0);
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        snapshot.peers()
                .forEach((peer, view) -> rows.add(MultiGauge.Row.of(
                        Tags.of(
                                "peer",
                                peer,
                                "state",
                                view.liveness().name().toLowerCase(Locale.ROOT).replace('_', '-')),
                        1)));
        peerStates.register(rows, true);
    }
}

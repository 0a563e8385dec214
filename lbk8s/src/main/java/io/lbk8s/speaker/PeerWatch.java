package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.PeerKeySecret;
import io.lbk8s.kube.PeerViewAnnotation;
import io.lbk8s.net.Fence;
import io.lbk8s.peers.Liveness;
import io.lbk8s.peers.Membership;
import io.lbk8s.peers.PeerDetector;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The speaker's side of the failure detector among speakers ({@link PeerDetector}): it tells the detector where the
 * other speakers listen (from the Nodes and speaker Pods), reads the keys from their Secret, turns what the detector
 * says into each node's {@link Liveness} for the leader choice, and tells users: a peer never heard (an Event on its
 * Node), and this speaker's view on its own Pod for {@code lbk8s status}.
 */
final class PeerWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerWatch.class);
    /** A peer not heard this long after the detector started is reported: its port is blocked, or its key differs. */
    private static final long NOT_HEARD_GRACE_NANOS = 10_000_000_000L;

    private final SpeakerSettings settings;
    private final PeerDetector detector;
    private final PeerKeySecret keys;
    private final Optional<PeerViewAnnotation> view;
    private final EventRecorder events;
    private final long startedAt = System.nanoTime();
    private final Set<String> reportedNotHeard = new HashSet<>();

    private PeerWatch(
            SpeakerSettings settings,
            PeerDetector detector,
            PeerKeySecret keys,
            Optional<PeerViewAnnotation> view,
            EventRecorder events) {
        this.settings = settings;
        this.detector = detector;
        this.keys = keys;
        this.view = view;
        this.events = events;
    }

    /**
     * Starts the detector on its port; when the port cannot be had, says so and lets this node answer without it
     * (judged by the API alone, as before), renewing its fence for good.
     */
    static Optional<PeerWatch> start(
            KubernetesClient client,
            SpeakerSettings settings,
            Fence fence,
            Runnable changed,
            MeterRegistry registry,
            EventRecorder events) {
        PeerDetector detector;
        try {
            detector =
                    PeerDetector.start(settings.node(), settings.peers(), fence, snapshot -> changed.run(), registry);
        } catch (IOException e) {
            fence.renewUntil(Long.MAX_VALUE);
            log.error(
                    "{}; running without the failure detector: a dead node is noticed only when the API marks it NotReady",
                    e.getMessage());
            return Optional.empty();
        }
        PeerKeySecret keys = PeerKeySecret.watch(
                client, settings.podNamespace(), settings.peers().secretName(), detector::keys);
        Optional<PeerViewAnnotation> view =
                settings.podName().map(pod -> new PeerViewAnnotation(client, settings.podNamespace(), pod));
        return Optional.of(new PeerWatch(settings, detector, keys, view, events));
    }

    /** Tells the detector where the other speakers listen, and returns what it says now. */
    Membership.Snapshot update(Collection<Node> nodes, Collection<Pod> speakerPods) {
        detector.peers(addresses(nodes, speakerPods));
        return now();
    }

    /** The detector's latest view, without updating its peers (safe from any thread). */
    Membership.Snapshot now() {
        return detector.snapshot();
    }

    /** What the detector says of a node: this node is alive when its peers let it announce. */
    Liveness liveness(String node, Membership.Snapshot snapshot) {
        if (node.equals(settings.node())) {
            return snapshot.ready() ? Liveness.ALIVE : Liveness.HELD;
        }
        return snapshot.liveness(node);
    }

    /** Where each other node's speaker listens: its node's InternalIP (speakers run with hostNetwork). */
    private Map<String, InetSocketAddress> addresses(Collection<Node> nodes, Collection<Pod> speakerPods) {
        Set<String> withSpeaker = SpeakerMapping.nodesWithSpeaker(speakerPods);
        Map<String, InetSocketAddress> addresses = new HashMap<>();
        for (Node node : nodes) {
            String name = node.getMetadata().getName();
            if (!name.equals(settings.node()) && withSpeaker.contains(name)) {
                ObjectFacts.internalIp(node)
                        .flatMap(PeerWatch::literal)
                        .ifPresent(ip -> addresses.put(
                                name, new InetSocketAddress(ip, settings.peers().port())));
            }
        }
        return addresses;
    }

    private static Optional<InetAddress> literal(String ip) {
        try {
            return Optional.of(InetAddress.ofLiteral(ip));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Publishes this speaker's view on its Pod, and reports each peer whose speaker is ready by the API but has never
     * been heard: the API alone judges it, so its death would go unnoticed for tens of seconds. Said once per peer, on
     * its Node, where {@code kubectl describe node} shows it.
     */
    void tellUsers(Membership.Snapshot snapshot, Set<String> readySpeakers, Map<String, Node> nodes) {
        view.ifPresent(v -> v.publish(PeerViewAnnotation.View.of(snapshot)));
        if (System.nanoTime() - startedAt < NOT_HEARD_GRACE_NANOS) {
            return;
        }
        int port = settings.peers().port();
        for (var entry : snapshot.peers().entrySet()) {
            String peer = entry.getKey();
            if (entry.getValue().liveness() != Liveness.NOT_HEARD) {
                reportedNotHeard.remove(peer);
            } else if (readySpeakers.contains(peer) && reportedNotHeard.add(peer)) {
                log.warn(
                        "the speaker on node {} has never been heard on UDP port {}: the API alone judges it",
                        peer,
                        port);
                Node node = nodes.get(peer);
                if (node != null) {
                    events.record(
                            node,
                            EventRecorder.Type.Warning,
                            "PeerNotHeard",
                            "the speaker on " + settings.node()
                                    + " has never heard this node's speaker on UDP port " + port
                                    + ", so it notices this node's failure"
                                    + " only when the API marks it NotReady; allow UDP " + port
                                    + " between nodes, and check that every"
                                    + " speaker reads the same keys (Secret " + settings.podNamespace() + "/"
                                    + settings.peers().secretName() + ")");
                }
            }
        }
    }

    /** For /readyz: being held back is not being unready, but it is worth saying. */
    String readinessNote() {
        Membership.Snapshot snapshot = detector.snapshot();
        return snapshot.ready()
                ? "; failure detector: this node may announce"
                : "; failure detector: this node announces nothing: " + snapshot.reason();
    }

    /** The speaker has withdrawn what it answered before that stall: the detector may let it answer again. */
    void stallHandled(Membership.Snapshot snapshot) {
        detector.stallHandled(snapshot.stalls());
    }

    /** A graceful stop: the peers take over now, without waiting for the API. */
    void leave() {
        detector.leave();
    }

    @Override
    public void close() {
        keys.close();
        view.ifPresent(PeerViewAnnotation::close);
        detector.close();
    }
}

package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.lbk8s.bgp.BgpSessions;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.kube.ServiceBgpStatuses;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.text.Quoted;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BGP half of the speaker's shell: hands each {@link BgpPlan} to this node's {@link BgpSessions} (only what
 * changed: a session restarts when its spec changes), and tells users what the sessions do: BGPSessionState and
 * ServiceBGPStatus objects, Events on the Node when a session comes up or goes down, metrics. Called from the
 * speaker's reconcile thread only.
 */
final class BgpAdvertiser implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BgpAdvertiser.class);
    static final String ESTABLISHED = "BGPSessionEstablished";
    static final String DOWN = "BGPSessionDown";
    static final String PEER_PROBLEM = "BGPPeerProblem";
    static final String FAMILY_DISABLED = "BGPFamilyDisabled";

    private final String node;
    private final BgpSessions sessions;
    private final SpeakerMetrics metrics;
    private final EventRecorder events;
    private final Supplier<Optional<HasMetadata>> nodeObject;
    private final BgpSessionStates sessionStates;
    private final ServiceBgpStatuses serviceStatuses;

    private List<PeerSpec> configured = List.of();
    private Map<String, Set<Route>> sent = Map.of();
    private Map<ServiceKey, Set<String>> published = Map.of();
    private List<String> peerProblems = List.of();
    private Map<String, SessionStatus> seen = Map.of();
    private boolean closed;

    BgpAdvertiser(
            String node,
            BgpSessions sessions,
            SpeakerMetrics metrics,
            EventRecorder events,
            Supplier<Optional<HasMetadata>> nodeObject,
            BgpSessionStates sessionStates,
            ServiceBgpStatuses serviceStatuses) {
        this.node = node;
        this.sessions = sessions;
        this.metrics = metrics;
        this.events = events;
        this.nodeObject = nodeObject;
        this.sessionStates = sessionStates;
        this.serviceStatuses = serviceStatuses;
    }

    /** Makes the sessions match {@code plan}; {@code failedNodes} lose the ServiceBGPStatuses they left behind. */
    void apply(BgpPlan plan, Set<String> failedNodes) {
        if (closed) {
            return;
        }
        if (!plan.peering().peers().equals(configured)) {
            sessions.configure(plan.peering().peers());
            configured = plan.peering().peers();
            sent = Map.of(); // a restarted session starts from nothing
        }
        plan.routes().forEach((peer, routes) -> {
            Set<Route> before = sent.getOrDefault(peer, Set.of());
            if (!routes.equals(sent.get(peer))) {
                if (log.isDebugEnabled()) {
                    // with its timestamp, where a route's time from Service created to the router goes (bench)
                    log.debug(
                            "BGPPeer {}: {} route(s), new {}, withdrawn {}",
                            peer,
                            routes.size(),
                            prefixes(routes, before),
                            prefixes(before, routes));
                }
                sessions.advertise(peer, routes);
            }
        });
        sent = plan.routes();
        if (!plan.services().equals(published)) {
            serviceStatuses.publish(plan.services(), failedNodes);
            published = plan.services();
        }
        if (!plan.peering().problems().equals(peerProblems)) {
            peerProblems = plan.peering().problems();
            for (String problem : peerProblems) {
                log.warn("{}", problem);
                nodeObject.get().ifPresent(n -> events.record(n, EventRecorder.Type.Warning, PEER_PROBLEM, problem));
            }
        }
        sessionsChanged();
    }

    /** The prefixes of {@code routes} that are not in {@code others}, sorted. */
    private static List<String> prefixes(Set<Route> routes, Set<Route> others) {
        return routes.stream()
                .filter(r -> !others.contains(r))
                .map(r -> r.prefix().toString())
                .sorted()
                .toList();
    }

    /** Reports what the sessions say now, where it differs from what they said before. */
    void sessionsChanged() {
        if (closed) {
            return;
        }
        List<SessionStatus> now = sessions.statuses();
        Map<String, SessionStatus> byPeer = new TreeMap<>();
        Map<String, BgpSessionStates.State> states = new HashMap<>();
        for (SessionStatus status : now) {
            byPeer.put(status.peer(), status);
            states.put(status.peer(), state(status));
            tellTransition(Optional.ofNullable(seen.get(status.peer())), status);
        }
        if (!byPeer.equals(seen)) {
            sessionStates.publish(states);
        }
        seen = byPeer;
        metrics.bgpSessions(now);
    }

    private void tellTransition(Optional<SessionStatus> before, SessionStatus now) {
        boolean wasUp = before.map(b -> b.state() == SessionState.ESTABLISHED).orElse(false);
        boolean isUp = now.state() == SessionState.ESTABLISHED;
        if (before.map(b -> b.state() != now.state()).orElse(true)) {
            metrics.bgpTransition(now.peer());
        }
        String session =
                "BGP session of node " + node + " with BGPPeer " + Quoted.of(now.peer()) + " (" + now.address() + ")";
        Optional<HasMetadata> target = nodeObject.get();
        if (isUp && !wasUp) {
            log.info("{} established", session);
            target.ifPresent(n ->
                    events.recordInsteadOf(n, DOWN, EventRecorder.Type.Normal, ESTABLISHED, session + " established"));
        } else if (!isUp && (wasUp || now.lastError().isPresent())) {
            // a session that never came up says why as soon as it knows (a refused connection, a NOTIFICATION)
            String message =
                    session + " is down" + now.lastError().map(e -> ": " + e).orElse("");
            if (wasUp || !before.flatMap(SessionStatus::lastError).equals(now.lastError())) {
                log.warn("{}", message);
            }
            target.ifPresent(n -> events.recordInsteadOf(n, ESTABLISHED, EventRecorder.Type.Warning, DOWN, message));
        }
        Set<Family> disabledBefore = before.map(SessionStatus::disabled).orElse(Set.of());
        now.disabled().stream()
                .filter(family -> !disabledBefore.contains(family))
                .sorted()
                .forEach(family -> target.ifPresent(n -> events.record(
                        n,
                        EventRecorder.Type.Warning,
                        FAMILY_DISABLED,
                        session + " goes on without " + family.describe() + " until it restarts: the peer sent an "
                                + family.describe() + " UPDATE that cannot be parsed (RFC 7606 AFI/SAFI disable)")));
    }

    /** MetalLB's words: FRR's names of the states, "N/A" without BFD. */
    static BgpSessionStates.State state(SessionStatus status) {
        String bgp = switch (status.state()) {
            case IDLE -> "Idle";
            case CONNECT -> "Connect";
            case ACTIVE -> "Active";
            case OPEN_SENT -> "OpenSent";
            case OPEN_CONFIRM -> "OpenConfirm";
            case ESTABLISHED -> "Established";
        };
        String bfd = status.bfd()
                .map(b -> switch (b) {
                    case ADMIN_DOWN -> "AdminDown";
                    case DOWN -> "Down";
                    case INIT -> "Init";
                    case UP -> "Up";
                })
                .orElse("N/A");
        List<String> disabled =
                status.disabled().stream().sorted().map(Family::describe).toList();
        return new BgpSessionStates.State(status.peer(), bgp, bfd, disabled);
    }

    /** Graceful stop: every session ends with a Cease, so the routers withdraw this node's routes at once. */
    void endSessions() {
        if (!closed) {
            closed = true;
            sessions.close();
        }
    }

    /** Deletes this node's status objects (graceful stop), waiting a bounded time for each kind. */
    void withdrawStatuses(long timeoutMillis) {
        serviceStatuses.withdraw(timeoutMillis);
        sessionStates.withdraw(timeoutMillis);
    }

    @Override
    public void close() {
        endSessions();
        serviceStatuses.close();
        sessionStates.close();
    }
}

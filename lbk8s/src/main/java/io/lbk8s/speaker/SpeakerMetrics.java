package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.metrics.Meters;
import io.lbk8s.net.AddressCounters;
import io.lbk8s.net.L2Listener;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.link.PacketSocket;
import io.lbk8s.service.ServiceKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The speaker's Prometheus metrics, after MetalLB's layer-2 ones: lbk8s_layer2_requests_received_total{ip,interface},
 * lbk8s_layer2_responses_sent_total, lbk8s_layer2_gratuitous_sent_total, lbk8s_speaker_announced{ip,service,node}
 * and lbk8s_speaker_announced_addresses; lbk8s_speaker_address_conflicts{address,node}, 1 for each address another
 * host answers for, as this node saw it; and lbk8s_speaker_requests_dropped_total{interface,protocol}, the requests
 * the kernel dropped because a responder's receive queue was full (they went unanswered). In BGP mode:
 * lbk8s_bgp_session_up{peer}, lbk8s_bgp_advertised_routes{peer}, lbk8s_bgp_session_transitions_total{peer} and
 * lbk8s_bgp_families_disabled{peer,family}.
 * How often it plans: lbk8s_speaker_plans_total, and lbk8s_speaker_changes_ignored_total{kind}, the watch events it did
 * not plan for because they changed nothing a plan reads.
 */
final class SpeakerMetrics implements L2Listener {
    private enum Kind {
        REQUESTS(
                "lbk8s.layer2.requests.received",
                "ARP requests and neighbor solicitations received for an announced address"),
        RESPONSES("lbk8s.layer2.responses.sent", "ARP replies and neighbor advertisements sent"),
        GRATUITOUS("lbk8s.layer2.gratuitous.sent", "Gratuitous ARP and unsolicited neighbor advertisements sent");

        final String name;
        final String help;

        Kind(String name, String help) {
            this.name = name;
            this.help = help;
        }
    }

    private record Key(String iface, IpAddress ip) {}

    private final Meters meters;
    private final String node;
    private final Map<Kind, Map<Key, Counter>> counters = new ConcurrentHashMap<>();
    private final MultiGauge announced;
    private final AtomicInteger announcedAddresses;
    private final Counter takeovers;
    private final Counter deferrals;
    private final Timer failoverTakeover;
    private final MultiGauge conflicts;
    private final java.util.Set<IpAddress> inConflict = ConcurrentHashMap.newKeySet();
    private final MultiGauge bgpSessionUp;
    private final MultiGauge bgpAdvertisedRoutes;
    private final MultiGauge bgpFamiliesDisabled;
    private final Map<String, Counter> bgpTransitions = new ConcurrentHashMap<>();
    private final Counter plans;
    private final Map<String, Counter> changesIgnored = new ConcurrentHashMap<>();
    /** By interface and protocol. */
    private final Map<List<String>, Counter> dropped = new ConcurrentHashMap<>();

    SpeakerMetrics(MeterRegistry registry, String node) {
        this.meters = new Meters(registry);
        this.node = node;
        for (Kind kind : Kind.values()) {
            counters.put(kind, new ConcurrentHashMap<>());
        }
        announced = meters.gauges("lbk8s.speaker.announced", "1 for each address and Service this node announces");
        announcedAddresses = meters.gauge("lbk8s.speaker.announced.addresses", "Addresses this node answers for");
        takeovers = meters.counter(
                "lbk8s.speaker.takeovers",
                "Addresses this node started answering for (at start, on a new Service, or taken from a node that failed or left)");
        deferrals = meters.counter(
                "lbk8s.speaker.takeovers.deferred",
                "Times this node did not take an address because another MAC answered the probe for it");
        failoverTakeover = Timer.builder("lbk8s.speaker.failover.takeover")
                .description("From applying a plan that gives this node an address of a node the detector declared"
                        + " failed to the first gratuitous ARP or unsolicited NA for it: the takeover part of a failover,"
                        + " after the detection (lbk8s_peers_failure_silence_seconds)")
                .register(registry);
        bgpSessionUp = meters.gauges(
                "lbk8s.bgp.session.up", "1 for each BGPPeer this node's session with is Established, 0 for the others");
        bgpAdvertisedRoutes = meters.gauges(
                "lbk8s.bgp.advertised.routes", "Routes this node has sent each BGPPeer and not withdrawn");
        bgpFamiliesDisabled = meters.gauges(
                "lbk8s.bgp.families.disabled",
                "1 for each address family RFC 7606's AFI/SAFI disable took off this node's session with a BGPPeer (the"
                        + " peer sent an UPDATE of that family that could not be parsed), until the session restarts");
        plans = meters.counter(
                "lbk8s.speaker.plans",
                "Plans this node computed: each reads every watched object, and one plan answers every change that came"
                        + " while the previous one ran");
        conflicts = meters.gauges(
                "lbk8s.speaker.address.conflicts",
                "1 for each address another host (a MAC that is no speaker's) answers for, as this node saw it");
    }

    /** Whether another host answers for {@code ip} now. */
    synchronized void conflict(IpAddress ip, boolean inConflictNow) {
        boolean changed = inConflictNow ? inConflict.add(ip) : inConflict.remove(ip);
        if (changed) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            inConflict.forEach(a -> rows.add(MultiGauge.Row.of(Tags.of("address", a.toString(), "node", node), 1)));
            conflicts.register(rows, true);
        }
    }

    void takeover() {
        takeovers.increment();
    }

    /** An address of a failed node announced {@code nanos} after the plan that gave it was applied. */
    void failoverTakeover(long nanos) {
        failoverTakeover.record(nanos, TimeUnit.NANOSECONDS);
    }

    void takeoverDeferred() {
        deferrals.increment();
    }

    /**
     * Resolved at the first answer, after that answer went out: registering a meter is slow in a cold JVM, and
     * {@code counters} is asked while a takeover is under way. After that a reply costs two adder increments.
     */
    @Override
    public AddressCounters counters(String iface, IpAddress ip) {
        return new AddressCounters() {
            // two threads may resolve these at once (a receive thread and the XDP collector): both get the same meters
            private volatile Counter requests;
            private volatile Counter responses;

            @Override
            public void answered(long count) {
                if (responses == null) {
                    requests = counter(Kind.REQUESTS, iface, ip);
                    responses = counter(Kind.RESPONSES, iface, ip);
                }
                requests.increment(count);
                responses.increment(count);
            }
        };
    }

    @Override
    public void received(String iface, int etherType, PacketSocket.Stats counted) {
        if (counted.drops() == 0) {
            return;
        }
        String protocol = etherType == ArpPacket.ETHERTYPE ? "arp" : "ndp";
        dropped.computeIfAbsent(
                        List.of(iface, protocol),
                        k -> meters.counter(
                                "lbk8s.speaker.requests.dropped",
                                "ARP requests and neighbor solicitations the kernel dropped because the responder's receive"
                                        + " queue was full (they went unanswered)",
                                "interface",
                                iface,
                                "protocol",
                                protocol))
                .increment(counted.drops());
    }

    @Override
    public void gratuitousSent(String iface, IpAddress ip) {
        counter(Kind.GRATUITOUS, iface, ip).increment();
    }

    private Counter counter(Kind kind, String iface, IpAddress ip) {
        return counters.get(kind)
                .computeIfAbsent(
                        new Key(iface, ip),
                        k -> meters.counter(kind.name, kind.help, "interface", k.iface(), "ip", k.ip().toString()));
    }

    /** A plan was computed (counted whether or not it changed anything). */
    void planned() {
        plans.increment();
    }

    /** A watch event of {@code kind} changed nothing a plan reads: no plan for it. */
    void changeIgnored(String kind) {
        changesIgnored
                .computeIfAbsent(
                        kind,
                        k -> meters.counter(
                                "lbk8s.speaker.changes.ignored",
                                "Watch events the speaker did not plan for because they changed nothing its plan reads"
                                        + " (a Node's heartbeat, a Service without an address, a peer's view on its Pod)",
                                "kind",
                                k))
                .increment();
    }

    void plan(NodePlan plan) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (NodePlan.Announced a : plan.announced().values()) {
            for (ServiceKey service : a.services()) {
                rows.add(MultiGauge.Row.of(
                        Tags.of("ip", a.ip().toString(), "service", service.toString(), "node", node), 1));
            }
        }
        announced.register(rows, true);
        announcedAddresses.set(plan.announced().size());
    }

    /** What this node's BGP sessions say now: one row per peer, peers no longer held disappear. */
    void bgpSessions(List<io.lbk8s.bgp.SessionStatus> sessions) {
        List<MultiGauge.Row<?>> up = new ArrayList<>();
        List<MultiGauge.Row<?>> routes = new ArrayList<>();
        List<MultiGauge.Row<?>> disabled = new ArrayList<>();
        for (io.lbk8s.bgp.SessionStatus session : sessions) {
            Tags peer = Tags.of("peer", session.peer());
            up.add(MultiGauge.Row.of(peer, session.state() == io.lbk8s.bgp.SessionState.ESTABLISHED ? 1 : 0));
            routes.add(MultiGauge.Row.of(peer, session.advertised()));
            // named as GoBGP's afi-safi-name: ipv4-unicast, ipv6-unicast
            session.disabled()
                    .forEach(f -> disabled.add(MultiGauge.Row.of(
                            peer.and(
                                    "family",
                                    f.describe()
                                            .toLowerCase(java.util.Locale.ROOT)
                                            .replace(' ', '-')),
                            1)));
        }
        bgpSessionUp.register(up, true);
        bgpAdvertisedRoutes.register(routes, true);
        bgpFamiliesDisabled.register(disabled, true);
    }

    /** The session with {@code peer} changed state. */
    void bgpTransition(String peer) {
        bgpTransitions
                .computeIfAbsent(
                        peer,
                        p -> meters.counter(
                                "lbk8s.bgp.session.transitions",
                                "Changes of state of this node's BGP session with each BGPPeer (RFC 4271's states)",
                                "peer",
                                p))
                .increment();
    }
}

package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Community;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.config.BgpAdvertisement;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one node tells its BGP peers, given the whole cluster's state: the BGP half of the speaker's decisions, pure
 * and computed from the same inputs as the {@link NodePlan}.
 *
 * @param peering   the sessions this node holds
 * @param routes    for each of those peers, by name, the routes it should have from this node (empty: none)
 * @param services  the Services this node advertises, with the peers each is advertised to
 * @param problems  sentences for Warning events on Services, each reported by one agreed node
 */
public record BgpPlan(
        BgpPeering peering,
        Map<String, Set<Route>> routes,
        Map<ServiceKey, Set<String>> services,
        List<NodePlan.Problem> problems) {

    public static final BgpPlan EMPTY = new BgpPlan(BgpPeering.NONE, Map.of(), Map.of(), List.of());

    public BgpPlan {
        routes = Map.copyOf(routes);
        services = Map.copyOf(services);
        problems = List.copyOf(problems);
    }

    /**
     * @param passwords the {@code password} of each Secret a BGPPeer names, by Secret name
     */
    public static BgpPlan compute(NodePlan.Inputs in, Map<String, String> passwords) {
        return compute(in, passwords, Map.of());
    }

    /**
     * @param unreadable why the API refused to show a Secret a BGPPeer names, by Secret name
     */
    public static BgpPlan compute(NodePlan.Inputs in, Map<String, String> passwords, Map<String, String> unreadable) {
        Optional<Frame> frame = Frame.of(in, passwords, unreadable, new HashOrders());
        if (frame.isEmpty()) {
            return EMPTY;
        }
        List<Share> shares = new ArrayList<>(in.services().size());
        for (ServiceState service : in.services()) {
            shares.add(share(in, frame.get(), service));
        }
        return of(frame.get(), shares);
    }

    /**
     * What every Service's share is computed against: the nodes as BGP sees them, this node among them, and the
     * sessions it holds, and what the decisions read of the nodes and the configuration, worked out once for all the
     * Services. Empty when no BGP is configured (the plan is then {@link #EMPTY}).
     */
    record Frame(
            List<NodeState> nodes,
            Optional<NodeState> me,
            BgpPeering peering,
            BgpChoice.Decider choices,
            LeaderChoice.Decider reporters) {
        static Optional<Frame> of(
                NodePlan.Inputs in,
                Map<String, String> passwords,
                Map<String, String> unreadable,
                HashOrders hashOrders) {
            if (in.config().bgpPeers().isEmpty()
                    && in.config().bgpAdvertisements().isEmpty()) {
                return Optional.empty();
            }
            List<NodeState> nodes = withThisSpeakerRunning(in.nodes(), in.node());
            Optional<NodeState> me =
                    nodes.stream().filter(n -> n.name().equals(in.node())).findFirst();
            BgpPeering peering = me.map(n -> BgpPeering.of(in.config(), n, in.options(), passwords, unreadable))
                    .orElse(BgpPeering.NONE);
            return Optional.of(new Frame(
                    nodes,
                    me,
                    peering,
                    new BgpChoice.Decider(in.config(), nodes, in.options()),
                    new LeaderChoice.Decider(in.config(), in.nodes(), in.options(), hashOrders)));
        }
    }

    /**
     * What one Service adds to this node's BGP plan: its problems, the routes it adds to each peer's table, and the
     * peers it is advertised to. It depends on the Service and on the cluster-wide inputs only ({@link PlanCache}).
     */
    record Share(ServiceKey service, List<NodePlan.Problem> problems, List<RouteAdd> routes, Set<String> peers) {
        Share {
            problems = List.copyOf(problems);
            routes = List.copyOf(routes);
            peers = Collections.unmodifiableSortedSet(new TreeSet<>(peers));
        }
    }

    /**
     * One BGPAdvertisement sending {@code prefix} to {@code peer}, and the route it makes when no other advertisement
     * sends that prefix to that peer (most prefixes: the route is worked out once, not at every plan).
     */
    record RouteAdd(String peer, IpPrefix prefix, BgpAdvertisement advertisement, Route alone) {
        RouteAdd(String peer, IpPrefix prefix, BgpAdvertisement advertisement) {
            this(peer, prefix, advertisement, RouteDraft.route(prefix, List.of(advertisement)));
        }
    }

    static Share share(NodePlan.Inputs in, Frame frame, ServiceState service) {
        List<NodeState> nodes = frame.nodes();
        BgpPeering peering = frame.peering();
        List<NodePlan.Problem> problems = new ArrayList<>(0);
        List<RouteAdd> routes = new ArrayList<>(1);
        Set<String> peers = new TreeSet<>();
        for (IpAddress ip : service.ips()) {
            switch (frame.choices().decideInNameOrder(service, ip)) {
                case BgpChoice.NotBgp _ -> {}
                case BgpChoice.Unadvertised(IpAddress unadvertised, String reason) -> {
                    if (frame.reporters()
                            .reporterOf(service.ips().getFirst())
                            .map(in.node()::equals)
                            .orElse(false)) {
                        problems.add(new NodePlan.Problem(service.key(), unadvertised, reason));
                    }
                }
                case BgpChoice.Advertised advertised
                when advertised.nodes().contains(in.node()) -> {
                    // one node says what is wrong with the configuration, the first that advertises in the
                    // address's hash order, worked out only when there is something to say
                    Boolean reporter = null;
                    if (LocalPrefClash.possible(advertised.advertisements())) {
                        LocalPrefClash.find(
                                        BgpChoice.inHashOrder(advertised, service), in.config(), nodes, in.options())
                                .filter(clash -> clash.node().equals(in.node()))
                                .ifPresent(
                                        clash -> problems.add(new NodePlan.Problem(service.key(), ip, clash.reason())));
                    }
                    for (BgpAdvertisement advertisement : advertised.advertisements()) {
                        if (!advertisement.allowsNode(frame.me().orElseThrow().labels())) {
                            continue;
                        }
                        for (PeerSpec peer : peering.peers()) {
                            if (!advertisement.toPeer(peer.name())) {
                                continue;
                            }
                            Optional<String> unsendable = unsendable(ip, peer);
                            if (unsendable.isPresent()) {
                                if (reporter == null) {
                                    reporter = BgpChoice.inHashOrder(advertised, service)
                                            .nodes()
                                            .getFirst()
                                            .equals(in.node());
                                }
                                if (reporter) {
                                    problems.add(new NodePlan.Problem(service.key(), ip, unsendable.get()));
                                }
                                continue;
                            }
                            routes.add(new RouteAdd(peer.name(), prefix(ip, advertisement), advertisement));
                            peers.add(peer.name());
                        }
                    }
                }
                case BgpChoice.Advertised _ -> {
                    /* other nodes advertise it, this one does not qualify */
                }
            }
        }
        return new Share(service.key(), problems, routes, peers);
    }

    /** The plan the Services' shares add up to, in their order. */
    static BgpPlan of(Frame frame, Iterable<Share> shares) {
        Map<String, Map<IpPrefix, RouteDraft>> drafts = new TreeMap<>();
        // by prefix in no order: a peer's routes are a set
        frame.peering().peers().forEach(p -> drafts.put(p.name(), new HashMap<>()));
        Map<ServiceKey, Set<String>> services = new HashMap<>(); // kept in no order (Map.copyOf)
        List<NodePlan.Problem> problems = new ArrayList<>();
        for (Share share : shares) {
            problems.addAll(share.problems());
            for (RouteAdd route : share.routes()) {
                RouteDraft before = drafts.get(route.peer()).putIfAbsent(route.prefix(), new RouteDraft(route));
                if (before != null) {
                    before.add(route);
                }
            }
            if (!share.peers().isEmpty()) {
                Set<String> before = services.putIfAbsent(share.service(), share.peers());
                if (before != null) {
                    TreeSet<String> both = new TreeSet<>(before);
                    both.addAll(share.peers());
                    services.put(share.service(), Collections.unmodifiableSortedSet(both));
                }
            }
        }
        Map<String, Set<Route>> routes = new TreeMap<>();
        drafts.forEach((peer, byPrefix) -> {
            List<Route> list = new ArrayList<>(byPrefix.size());
            byPrefix.values().forEach(draft -> list.add(draft.route()));
            routes.put(peer, Set.copyOf(list));
        });
        return new BgpPlan(
                frame.peering(), routes, services, problems.stream().distinct().toList());
    }

    /**
     * The nodes, with this node's speaker taken as ready: it is the one computing this plan. Its Pod turns Ready only
     * when the kubelet next probes it, and not at all while it cannot answer ARP (layer 2's business); a speaker that
     * waited for it would open its sessions with an empty table, and a router keeping this node's routes for a
     * graceful restart would drop them on that table's End-of-RIB.
     */
    private static List<NodeState> withThisSpeakerRunning(Collection<NodeState> nodes, String self) {
        return nodes.stream()
                .map(n -> n.name().equals(self) && !n.speakerReady()
                        ? new NodeState(n.name(), n.labels(), n.ready(), n.networkUnavailable(), true, n.liveness())
                        : n)
                .toList();
    }

    /** The prefix a BGPAdvertisement advertises {@code ip} with: the address itself unless it aggregates. */
    static IpPrefix prefix(IpAddress ip, BgpAdvertisement advertisement) {
        int length = ip.isV4() ? advertisement.aggregationLength() : advertisement.aggregationLengthV6();
        return IpPrefix.around(ip, length);
    }

    /** Why {@code ip} cannot go to {@code peer}: a session carries the family of the peer's address, unless dual-stack. */
    private static Optional<String> unsendable(IpAddress ip, PeerSpec peer) {
        IpFamily family = ip.family();
        if (family == peer.address().family() || peer.dualStack()) {
            return Optional.empty();
        }
        return Optional.of(ip + " is not advertised to BGPPeer " + Quoted.of(peer.name()) + ": its session to "
                + peer.address() + " carries " + peer.address().family() + " routes only; set"
                + " dualStackAddressFamily: true on the BGPPeer to send " + family + " routes over it");
    }

    /**
     * The advertisements that send one prefix to one peer. Their communities add up; their localPrefs should agree,
     * and when they do not the highest wins ({@link LocalPrefClash}), so that every node sends the same and the
     * router sees one route per prefix from each node.
     */
    private static final class RouteDraft {
        private final RouteAdd first;
        private List<BgpAdvertisement> all; // null while only the first sends the prefix

        RouteDraft(RouteAdd first) {
            this.first = first;
        }

        void add(RouteAdd more) {
            if (all == null) {
                all = new ArrayList<>(List.of(first.advertisement()));
            }
            all.add(more.advertisement());
        }

        Route route() {
            return all == null ? first.alone() : route(first.prefix(), all);
        }

        static Route route(IpPrefix prefix, List<BgpAdvertisement> advertisements) {
            if (advertisements.size() == 1
                    && advertisements.getFirst().communities().size() < 2) {
                // most routes (one advertisement, at most one community): nothing to add up or to sort
                BgpAdvertisement only = advertisements.getFirst();
                return new Route(prefix, only.localPref(), only.communities());
            }
            List<OptionalLong> localPrefs = new ArrayList<>(advertisements.size());
            Set<Community> communities = new TreeSet<>(Comparator.comparing(BgpPlan::communityOrder));
            for (BgpAdvertisement advertisement : advertisements) {
                localPrefs.add(advertisement.localPref());
                communities.addAll(advertisement.communities());
            }
            return new Route(prefix, LocalPrefClash.highest(localPrefs), List.copyOf(communities));
        }
    }

    /** Standard communities before large ones, each in numeric order: the order routes carry them in. */
    private static String communityOrder(Community community) {
        return switch (community) {
            case Community.Standard s -> "0" + String.format("%010d", s.value());
            case Community.Large l -> "1" + String.format("%010d%010d%010d", l.global(), l.local1(), l.local2());
        };
    }
}

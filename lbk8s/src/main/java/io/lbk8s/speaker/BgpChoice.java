package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.BgpAdvertisement;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.peers.Liveness;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which nodes advertise an address of a Service over BGP: unlike layer 2, not one leader but every node that
 * qualifies, and the router spreads the traffic over them (ECMP). A node qualifies when the API lets it announce
 * anything at all ({@link #whyUnfit}), a BGPAdvertisement selecting the address's pool allows it and targets a
 * BGPPeer the node peers with, and, with {@code externalTrafficPolicy: Local}, it holds a ready endpoint. Every
 * speaker computes this alike from the same objects.
 *
 * <p>The failure detector among speakers has no say here, as memberlist has none in MetalLB's BGP mode: its verdicts
 * keep two nodes from answering ARP for one address (layer 2's fence), while in BGP every qualifying node advertises
 * anyway, and the router itself drops a dead node's routes (hold time, BFD). Following the detector, a speaker whose
 * detector merely stalled (starved of CPU for a fraction of a second) withdrew every route and advertised it again.
 */
public final class BgpChoice {
    private BgpChoice() {}

    public sealed interface Decision {}

    /** No BGPAdvertisement selects the address's pool (or it is in no pool): BGP has nothing to say of it. */
    public record NotBgp() implements Decision {}

    /**
     * @param advertisements the BGPAdvertisements that select the pool
     * @param nodes          the nodes that advertise it, in the address's hash order
     */
    public record Advertised(IpAddress ip, AddressPool pool, List<BgpAdvertisement> advertisements, List<String> nodes)
            implements Decision {
        public Advertised {
            advertisements = List.copyOf(advertisements);
            nodes = List.copyOf(nodes);
        }
    }

    /** A BGPAdvertisement selects the pool, yet no node advertises {@code ip}; {@code reason} says why. */
    public record Unadvertised(IpAddress ip, String reason) implements Decision {}

    public static Decision decide(
            Config config,
            ServiceState service,
            IpAddress ip,
            Collection<NodeState> nodes,
            LeaderChoice.Options options) {
        return switch (decideInNameOrder(config, service, ip, nodes, options)) {
            case Advertised advertised -> inHashOrder(advertised, service);
            case Decision other -> other;
        };
    }

    /**
     * As {@link #decide}, with the advertising nodes in name order: their hash order costs a SHA-256 per node, and a
     * plan needs it only for the few addresses it has a problem to report about ({@link #inHashOrder}).
     */
    static Decision decideInNameOrder(
            Config config,
            ServiceState service,
            IpAddress ip,
            Collection<NodeState> nodes,
            LeaderChoice.Options options) {
        return new Decider(config, nodes, options).decideInNameOrder(service, ip);
    }

    /**
     * The decisions of one plan, as {@link #decideInNameOrder} makes them: what they read of the configuration and
     * the nodes is worked out once per plan (the nodes in name order, why a node may advertise nothing at all) or once
     * per pool (the BGPAdvertisements that select it, which nodes they let advertise), not once per address; what is
     * left for each address is its Service's endpoints.
     */
    static final class Decider {
        private final Config config;
        private final List<NodeState> byName;
        private final LeaderChoice.Options options;
        // by identity: the pools are the configuration's own, and a pool's equals would compare its ranges
        private final Map<AddressPool, Pool> pools = new IdentityHashMap<>();

        /** The BGPAdvertisements selecting a pool, and why each node (by position in byName) may not advertise it. */
        private record Pool(AddressPool pool, List<BgpAdvertisement> advertisements, List<Optional<String>> whyNot) {}

        Decider(Config config, Collection<NodeState> nodes, LeaderChoice.Options options) {
            this.config = config;
            this.byName = LeaderChoice.byName(nodes);
            this.options = options;
        }

        Decision decideInNameOrder(ServiceState service, IpAddress ip) {
            // loops, not streams: a plan runs this for every address ({@link LeaderChoice})
            Optional<AddressPool> found = LeaderChoice.poolOf(config, ip);
            if (found.isEmpty()) {
                return new NotBgp(); // layer 2's choice says so already
            }
            Pool pool = pools.computeIfAbsent(found.get(), this::pool);
            if (pool.advertisements().isEmpty()) {
                return new NotBgp();
            }
            Optional<String> noEndpoint = service.endpoints().whyNoNode(ip, service.localTrafficPolicy());
            if (noEndpoint.isPresent()) {
                return new Unadvertised(ip, noEndpoint.get());
            }
            Map<String, List<String>> excludedBy = new LinkedHashMap<>();
            List<String> eligible = new ArrayList<>(byName.size());
            for (int i = 0; i < byName.size(); i++) {
                String name = byName.get(i).name();
                Optional<String> why = pool.whyNot().get(i);
                if (why.isEmpty() && !service.endpoints().allows(name, service.localTrafficPolicy())) {
                    why = Optional.of(LeaderChoice.NO_LOCAL_ENDPOINT);
                }
                if (why.isEmpty()) {
                    eligible.add(name);
                } else {
                    excludedBy
                            .computeIfAbsent(why.get(), k -> new ArrayList<>())
                            .add(name);
                }
            }
            if (eligible.isEmpty()) {
                return new Unadvertised(
                        ip,
                        LeaderChoice.noEligibleNode(ip, "advertise " + ip + " over BGP", excludedBy, byName.size()));
            }
            return new Advertised(ip, pool.pool(), pool.advertisements(), eligible);
        }

        private Pool pool(AddressPool pool) {
            List<BgpAdvertisement> advertisements = new ArrayList<>();
            for (BgpAdvertisement advertisement : config.bgpAdvertisements()) {
                if (advertisement.selects(pool)) {
                    advertisements.add(advertisement);
                }
            }
            List<Optional<String>> whyNot = new ArrayList<>(byName.size());
            for (NodeState node : byName) {
                whyNot.add(whyNot(config, node, advertisements, options));
            }
            return new Pool(pool, List.copyOf(advertisements), whyNot);
        }
    }

    /** {@code advertised} with its nodes in the hash order of the Service's first address. */
    static Advertised inHashOrder(Advertised advertised, ServiceState service) {
        return new Advertised(
                advertised.ip(),
                advertised.pool(),
                advertised.advertisements(),
                LeaderChoice.inHashOrder(advertised.nodes(), service.ips().getFirst()));
    }

    /**
     * Why {@code node} may advertise nothing at all over BGP: layer 2's reasons as the API tells them (its speaker,
     * its conditions, the exclusion label), without the failure detector's verdict.
     */
    static Optional<String> whyUnfit(NodeState node, LeaderChoice.Options options) {
        return LeaderChoice.whyUnfit(node.withLiveness(Liveness.NOT_HEARD), options);
    }

    private static Optional<String> whyNot(
            Config config, NodeState node, List<BgpAdvertisement> advertisements, LeaderChoice.Options options) {
        Optional<String> unfit = whyUnfit(node, options);
        if (unfit.isPresent()) {
            return unfit;
        }
        List<BgpAdvertisement> allowing = new ArrayList<>();
        for (BgpAdvertisement advertisement : advertisements) {
            if (advertisement.allowsNode(node.labels())) {
                allowing.add(advertisement);
            }
        }
        if (allowing.isEmpty()) {
            return Optional.of("is not selected by the nodeSelectors of "
                    + LeaderChoice.names(
                            advertisements.stream().map(BgpAdvertisement::name).toList()));
        }
        boolean peersWithATarget = false;
        for (BgpPeer peer : config.bgpPeers()) {
            if (BgpPeering.peers(peer, node, options)) {
                for (BgpAdvertisement advertisement : allowing) {
                    peersWithATarget |= advertisement.toPeer(peer.name());
                }
            }
        }
        if (!peersWithATarget) {
            return Optional.of("peers with none of the BGPPeers that "
                    + LeaderChoice.names(
                            allowing.stream().map(BgpAdvertisement::name).toList())
                    + " advertise to");
        }
        return Optional.empty();
    }
}

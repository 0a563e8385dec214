package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.Community;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.config.BfdProfile;
import io.lbk8s.config.BgpAdvertisement;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.LabelSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * BGP configuration as the parser will hand it over (the records, built here directly), and the one way the tests
 * render what a node sends its peers.
 */
final class BgpFixtures {
    private BgpFixtures() {}

    static final String NS = "metallb-system";

    /** A BGPPeer at {@code address}, AS 64512 to 64500, every node; change it with the {@code with*} methods. */
    static BgpPeer peer(String name, String address) {
        return peer(name, address, 64500);
    }

    private static BgpPeer peer(String name, String address, long peerAsn) {
        return new BgpPeer(
                name,
                64512,
                OptionalLong.of(peerAsn),
                Optional.empty(),
                IpAddress.parse(address).orElseThrow(),
                PeerSpec.PORT,
                Optional.empty(),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(10),
                List.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                false,
                false,
                new ConfigOrigin(ConfigOrigin.Kind.BGPPeer, NS, name));
    }

    /** A BGPPeer in the cluster's own AS (iBGP, which gets LOCAL_PREF), every node. */
    static BgpPeer internal(String name, String address) {
        return peer(name, address, 64512);
    }

    static BgpPeer onNodes(BgpPeer p, String label) {
        return copy(
                p,
                List.of(selector(label)),
                p.password(),
                p.passwordSecret(),
                p.bfdProfile(),
                p.dualStackAddressFamily(),
                p.enableGracefulRestart());
    }

    static BgpPeer dualStack(BgpPeer p) {
        return copy(
                p,
                p.nodeSelectors(),
                p.password(),
                p.passwordSecret(),
                p.bfdProfile(),
                true,
                p.enableGracefulRestart());
    }

    static BgpPeer secured(BgpPeer p, Optional<String> password, Optional<String> secret, Optional<String> bfd) {
        return copy(p, p.nodeSelectors(), password, secret, bfd, p.dualStackAddressFamily(), p.enableGracefulRestart());
    }

    static BgpPeer gracefullyRestarting(BgpPeer p) {
        return copy(
                p,
                p.nodeSelectors(),
                p.password(),
                p.passwordSecret(),
                p.bfdProfile(),
                p.dualStackAddressFamily(),
                true);
    }

    private static BgpPeer copy(
            BgpPeer p,
            List<LabelSelector> nodeSelectors,
            Optional<String> password,
            Optional<String> secret,
            Optional<String> bfd,
            boolean dualStack,
            boolean gracefulRestart) {
        return new BgpPeer(
                p.name(),
                p.myAsn(),
                p.peerAsn(),
                p.dynamicAsn(),
                p.peerAddress(),
                p.peerPort(),
                p.sourceAddress(),
                p.routerId(),
                p.holdTime(),
                p.keepaliveTime(),
                p.connectTime(),
                nodeSelectors,
                password,
                secret,
                bfd,
                p.ebgpMultiHop(),
                gracefulRestart,
                dualStack,
                p.origin());
    }

    record Adv(
            String name,
            List<String> pools,
            List<LabelSelector> nodes,
            List<String> peers,
            int length,
            int lengthV6,
            OptionalLong localPref,
            List<Community> communities) {
        static Adv of(String name) {
            return new Adv(name, List.of(), List.of(), List.of(), 32, 128, OptionalLong.empty(), List.of());
        }

        Adv pools(String... names) {
            return new Adv(name, List.of(names), nodes, peers, length, lengthV6, localPref, communities);
        }

        Adv nodes(String label) {
            return new Adv(name, pools, List.of(selector(label)), peers, length, lengthV6, localPref, communities);
        }

        Adv peers(String... names) {
            return new Adv(name, pools, nodes, List.of(names), length, lengthV6, localPref, communities);
        }

        Adv aggregate(int v4, int v6) {
            return new Adv(name, pools, nodes, peers, v4, v6, localPref, communities);
        }

        Adv localPref(long value) {
            return new Adv(name, pools, nodes, peers, length, lengthV6, OptionalLong.of(value), communities);
        }

        Adv communities(Community... values) {
            return new Adv(name, pools, nodes, peers, length, lengthV6, localPref, List.of(values));
        }

        BgpAdvertisement build() {
            return new BgpAdvertisement(
                    name,
                    pools,
                    List.of(),
                    nodes,
                    peers,
                    length,
                    lengthV6,
                    localPref,
                    communities,
                    new ConfigOrigin(ConfigOrigin.Kind.BGPAdvertisement, NS, name));
        }
    }

    static BfdProfile bfdProfile(String name, io.lbk8s.bfd.BfdSettings settings) {
        return new BfdProfile(name, settings, new ConfigOrigin(ConfigOrigin.Kind.BFDProfile, NS, name));
    }

    /** {@code key=value} */
    static LabelSelector selector(String label) {
        String[] kv = label.split("=", 2);
        return new LabelSelector(Map.of(kv[0], kv[1]), List.of());
    }

    /** The layer-2 fixture's pools and L2Advertisements, with this BGP configuration. */
    static Config withBgp(Config layer2, List<BgpPeer> peers, List<Adv> advertisements, List<BfdProfile> bfd) {
        return new Config(
                layer2.pools(),
                layer2.l2Advertisements(),
                peers,
                advertisements.stream().map(Adv::build).toList(),
                bfd);
    }

    /**
     * What every node of {@code nodes} sends each of its peers, one line a node and peer ({@code node-1 -> tor:
     * 10.0.0.1/32}), then each problem with the node that reports it.
     */
    static List<String> render(Config config, List<ServiceState> services, List<NodeState> nodes) {
        return render(config, services, nodes, Map.of());
    }

    static List<String> render(
            Config config, List<ServiceState> services, List<NodeState> nodes, Map<String, String> passwords) {
        List<String> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (NodeState node :
                nodes.stream().sorted(Comparator.comparing(NodeState::name)).toList()) {
            BgpPlan plan = BgpPlan.compute(
                    new NodePlan.Inputs(
                            node.name(),
                            config,
                            services,
                            nodes,
                            LeaderChoice.Options.DEFAULT,
                            List.of(),
                            InterfaceChoice.DEFAULT_EXCLUDED),
                    passwords);
            for (PeerSpec peer : plan.peering().peers()) {
                lines.add(node.name() + " -> " + peer.name() + ": "
                        + routes(plan.routes().get(peer.name())));
            }
            plan.peering().problems().forEach(p -> problems.add(node.name() + ": " + p));
            plan.problems()
                    .forEach(
                            p -> problems.add(node.name() + " on " + p.service().name() + ": " + p.reason()));
        }
        lines.addAll(problems);
        return lines;
    }

    static String routes(java.util.Set<Route> routes) {
        if (routes.isEmpty()) {
            return "nothing";
        }
        return routes.stream().map(BgpFixtures::route).sorted().collect(Collectors.joining(", "));
    }

    static String route(Route route) {
        String text = route.prefix().toString();
        if (route.localPref().isPresent()) {
            text += " localPref " + route.localPref().getAsLong();
        }
        if (!route.communities().isEmpty()) {
            text += " " + route.communities();
        }
        return text;
    }
}

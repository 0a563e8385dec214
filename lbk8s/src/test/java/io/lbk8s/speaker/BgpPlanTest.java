package io.lbk8s.speaker;

import static io.lbk8s.speaker.BgpFixtures.dualStack;
import static io.lbk8s.speaker.BgpFixtures.onNodes;
import static io.lbk8s.speaker.BgpFixtures.peer;
import static io.lbk8s.speaker.BgpFixtures.render;
import static io.lbk8s.speaker.BgpFixtures.withBgp;
import static io.lbk8s.speaker.LeaderChoiceTest.POOL;
import static io.lbk8s.speaker.LeaderChoiceTest.THREE;
import static io.lbk8s.speaker.LeaderChoiceTest.cluster;
import static io.lbk8s.speaker.LeaderChoiceTest.config;
import static io.lbk8s.speaker.LeaderChoiceTest.judged;
import static io.lbk8s.speaker.LeaderChoiceTest.local;
import static io.lbk8s.speaker.LeaderChoiceTest.node;
import static io.lbk8s.speaker.LeaderChoiceTest.notReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.bgp.Community;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.peers.Liveness;
import io.lbk8s.service.ServiceKey;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What each node of a three-node cluster sends its BGP peers, and what it reports. Hash orders (LeaderChoiceTest):
 * 10.0.0.1: node-3, node-2, node-1; fd00::200: node-3, node-1, node-2. The first node in an address's order that
 * advertises it reports what is wrong with its configuration.
 */
class BgpPlanTest {

    static final BgpPeer TOR = peer("tor", "10.0.0.254");
    static final BgpPeer TOR_B = peer("tor-b", "10.0.0.253");
    static final BgpPeer TOR_V6 = peer("tor6", "fd00::fe");
    static final BgpPeer IBGP = BgpFixtures.internal("ibgp", "10.0.0.252");
    static final BgpFixtures.Adv ALL = BgpFixtures.Adv.of("all");

    static Config bgp(List<BgpPeer> peers, BgpFixtures.Adv... advertisements) {
        return withBgp(config(POOL), peers, List.of(advertisements), List.of());
    }

    static Stream<Arguments> cases() {
        String excluded = io.lbk8s.speaker.NodeState.EXCLUDE_LABEL;
        return Stream.of(
                arguments(
                        "externalTrafficPolicy Cluster: every node advertises (ECMP)",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        THREE,
                        List.of(
                                "node-1 -> tor: 10.0.0.1/32",
                                "node-2 -> tor: 10.0.0.1/32",
                                "node-3 -> tor: 10.0.0.1/32")),
                arguments(
                        "externalTrafficPolicy Local: only the node with a ready endpoint",
                        bgp(List.of(TOR), ALL),
                        List.of(local("10.0.0.1", "node-2")),
                        THREE,
                        List.of("node-1 -> tor: nothing", "node-2 -> tor: 10.0.0.1/32", "node-3 -> tor: nothing")),
                arguments(
                        "externalTrafficPolicy Local without a ready endpoint: nobody, said once",
                        bgp(List.of(TOR), ALL),
                        List.of(local("10.0.0.1")),
                        THREE,
                        List.of(
                                "node-1 -> tor: nothing",
                                "node-2 -> tor: nothing",
                                "node-3 -> tor: nothing",
                                "node-3 on web: the Service has no ready endpoint, and with externalTrafficPolicy: Local"
                                        + " only a node with one may announce 10.0.0.1")),
                arguments(
                        "the failure detector has no say: a node it holds back (starting, resuming after a pause)"
                                + " keeps advertising",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1"), node("node-2"), judged("node-3", Liveness.HELD)),
                        List.of(
                                "node-1 -> tor: 10.0.0.1/32",
                                "node-2 -> tor: 10.0.0.1/32",
                                "node-3 -> tor: 10.0.0.1/32")),
                arguments(
                        "nor does a node its peers judged dead stop advertising: the router's hold time or BFD decide",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1"), node("node-2"), judged("node-3", Liveness.DEAD)),
                        List.of(
                                "node-1 -> tor: 10.0.0.1/32",
                                "node-2 -> tor: 10.0.0.1/32",
                                "node-3 -> tor: 10.0.0.1/32")),
                arguments(
                        "a speaker whose Pod is not Ready yet advertises: it runs, it computes this",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1"), LeaderChoiceTest.noSpeaker("node-2")),
                        List.of("node-1 -> tor: 10.0.0.1/32", "node-2 -> tor: 10.0.0.1/32")),
                arguments(
                        "a node not Ready withdraws",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1"), notReady("node-2"), node("node-3")),
                        List.of("node-1 -> tor: 10.0.0.1/32", "node-2 -> tor: nothing", "node-3 -> tor: 10.0.0.1/32")),
                arguments(
                        "an excluded node holds no session",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1", excluded), node("node-2"), node("node-3")),
                        List.of("node-2 -> tor: 10.0.0.1/32", "node-3 -> tor: 10.0.0.1/32")),
                arguments(
                        "a BGPPeer's nodeSelectors: only the racks it names peer",
                        bgp(List.of(onNodes(TOR, "rack=a")), ALL),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1", "rack=a"), node("node-2", "rack=b"), node("node-3")),
                        List.of("node-1 -> tor: 10.0.0.1/32")),
                arguments(
                        "a BGPAdvertisement's nodeSelectors: the other nodes peer and send nothing",
                        bgp(List.of(TOR), ALL.nodes("rack=b")),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1", "rack=a"), node("node-2", "rack=b"), node("node-3")),
                        List.of("node-1 -> tor: nothing", "node-2 -> tor: 10.0.0.1/32", "node-3 -> tor: nothing")),
                arguments(
                        "a BGPAdvertisement's peers: the others get nothing",
                        bgp(List.of(TOR, TOR_B), ALL.peers("tor-b")),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: nothing", "node-1 -> tor-b: 10.0.0.1/32")),
                arguments(
                        "aggregationLength: addresses in one /24 are one route",
                        bgp(List.of(TOR), ALL.aggregate(24, 64)),
                        List.of(cluster("10.0.0.1"), cluster("10.0.0.2")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.0/24")),
                arguments(
                        "aggregationLengthV6 on a dual-stack peer",
                        bgp(List.of(dualStack(TOR)), ALL.aggregate(32, 64)),
                        List.of(cluster("10.0.0.1", "fd00::200")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.1/32, fd00::/64")),
                arguments(
                        "an IPv6 address is not sent on an IPv4 session without dualStackAddressFamily",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1", "fd00::200")),
                        List.of(node("node-1"), node("node-2")),
                        List.of(
                                "node-1 -> tor: 10.0.0.1/32",
                                "node-2 -> tor: 10.0.0.1/32",
                                "node-2 on web: fd00::200 is not advertised to BGPPeer \"tor\": its session to"
                                        + " 10.0.0.254 carries IPv4 routes only; set dualStackAddressFamily: true on"
                                        + " the BGPPeer to send IPv6 routes over it")),
                arguments(
                        "an IPv6 peer gets the IPv6 address, the IPv4 peer the IPv4 one",
                        bgp(List.of(TOR, TOR_V6), ALL),
                        List.of(cluster("10.0.0.1", "fd00::200")),
                        List.of(node("node-1")),
                        List.of(
                                "node-1 -> tor: 10.0.0.1/32",
                                "node-1 -> tor6: fd00::200/128",
                                "node-1 on web: 10.0.0.1 is not advertised to BGPPeer \"tor6\": its session to"
                                        + " fd00::fe carries IPv6 routes only; set dualStackAddressFamily: true on"
                                        + " the BGPPeer to send IPv4 routes over it",
                                "node-1 on web: fd00::200 is not advertised to BGPPeer \"tor\": its session to"
                                        + " 10.0.0.254 carries IPv4 routes only; set dualStackAddressFamily: true on"
                                        + " the BGPPeer to send IPv6 routes over it")),
                arguments(
                        "localPref and communities go with the route",
                        bgp(List.of(TOR), ALL.localPref(150).communities(new Community.Standard(65000, 100))),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.1/32 localPref 150 [65000:100]")),
                arguments(
                        "two BGPAdvertisements of one prefix: their communities add up",
                        bgp(
                                List.of(TOR),
                                ALL.communities(new Community.Large(64512, 1, 2)),
                                BgpFixtures.Adv.of("tagged").communities(new Community.Standard(65000, 100))),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.1/32 [65000:100, large:64512:1:2]")),
                arguments(
                        "two BGPAdvertisements disagree on localPref towards an iBGP peer: the highest, said once",
                        bgp(
                                List.of(IBGP),
                                ALL.localPref(100),
                                BgpFixtures.Adv.of("preferred").localPref(200)),
                        List.of(cluster("10.0.0.1")),
                        THREE,
                        List.of(
                                "node-1 -> ibgp: 10.0.0.1/32 localPref 200",
                                "node-2 -> ibgp: 10.0.0.1/32 localPref 200",
                                "node-3 -> ibgp: 10.0.0.1/32 localPref 200",
                                "node-3 on web: BGPAdvertisements give 10.0.0.1/32 different localPrefs towards iBGP"
                                        + " peer \"ibgp\" from node-3 (\"all\" 100, \"preferred\" 200); the highest,"
                                        + " 200, is sent")),
                arguments(
                        "towards an eBGP peer they do not clash: LOCAL_PREF is not sent to it",
                        bgp(
                                List.of(TOR),
                                ALL.localPref(100),
                                BgpFixtures.Adv.of("preferred").localPref(200)),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.1/32 localPref 200")),
                arguments(
                        "an unset localPref is sent as 100: it agrees with 100",
                        bgp(List.of(IBGP), ALL, BgpFixtures.Adv.of("hundred").localPref(100)),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> ibgp: 10.0.0.1/32 localPref 100")),
                arguments(
                        "an unset localPref against 50: 100, what unset is sent as, is the highest",
                        bgp(List.of(IBGP), ALL, BgpFixtures.Adv.of("low").localPref(50)),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of(
                                "node-1 -> ibgp: 10.0.0.1/32 localPref 100",
                                "node-1 on web: BGPAdvertisements give 10.0.0.1/32 different localPrefs towards iBGP"
                                        + " peer \"ibgp\" from node-1 (\"all\" unset (100), \"low\" 50); the"
                                        + " highest, 100, is sent")),
                arguments(
                        "different aggregation lengths are different routes: no clash",
                        bgp(
                                List.of(IBGP),
                                ALL.localPref(100),
                                BgpFixtures.Adv.of("aggregate")
                                        .aggregate(24, 128)
                                        .localPref(200)),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> ibgp: 10.0.0.0/24 localPref 200, 10.0.0.1/32 localPref 100")),
                arguments(
                        "nodeSelectors that overlap on node-2 only: node-2 says so, though node-3 is first in order",
                        bgp(
                                List.of(IBGP),
                                BgpFixtures.Adv.of("rack-a").nodes("rack=a").localPref(100),
                                BgpFixtures.Adv.of("zone-x").nodes("zone=x").localPref(200)),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1", "rack=a"), node("node-2", "rack=a", "zone=x"), node("node-3", "zone=x")),
                        List.of(
                                "node-1 -> ibgp: 10.0.0.1/32 localPref 100",
                                "node-2 -> ibgp: 10.0.0.1/32 localPref 200",
                                "node-3 -> ibgp: 10.0.0.1/32 localPref 200",
                                "node-2 on web: BGPAdvertisements give 10.0.0.1/32 different localPrefs towards iBGP"
                                        + " peer \"ibgp\" from node-2 (\"rack-a\" 100, \"zone-x\" 200); the highest,"
                                        + " 200, is sent")),
                arguments(
                        "a pool no BGPAdvertisement selects is none of BGP's business",
                        bgp(List.of(TOR), ALL.pools("elsewhere")),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: nothing")),
                arguments(
                        "no node qualifies: said once, with each node's reason",
                        bgp(List.of(onNodes(TOR, "rack=a")), ALL.nodes("rack=b")),
                        List.of(cluster("10.0.0.1")),
                        List.of(node("node-1", "rack=a"), node("node-2", "rack=b"), notReady("node-3")),
                        List.of(
                                "node-1 -> tor: nothing",
                                // as in layer 2, the first ready speaker in hash order reports, Ready node or not
                                "node-3 on web: no node can advertise 10.0.0.1 over BGP: node-1 is not selected by"
                                        + " the nodeSelectors of \"all\"; node-2 peers with none of the BGPPeers that"
                                        + " \"all\" advertise to; node-3 is not Ready")),
                arguments(
                        "a Service sharing an address with another: one route",
                        bgp(List.of(TOR), ALL),
                        List.of(cluster("10.0.0.1"), NodePlanTest.service("other", "10.0.0.1")),
                        List.of(node("node-1")),
                        List.of("node-1 -> tor: 10.0.0.1/32")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void whatEachNodeSendsItsPeers(
            String description, Config config, List<ServiceState> services, List<NodeState> nodes, List<String> sent) {
        assertThat(render(config, services, nodes)).as(description).containsExactlyElementsOf(sent);
    }

    @org.junit.jupiter.api.Test
    void servicesListThePeersTheyAreAdvertisedTo() {
        BgpPlan plan = BgpPlan.compute(
                new NodePlan.Inputs(
                        "node-1",
                        bgp(List.of(TOR, TOR_B, TOR_V6), ALL),
                        List.of(cluster("10.0.0.1"), NodePlanTest.service("v6", "fd00::200")),
                        List.of(node("node-1")),
                        LeaderChoice.Options.DEFAULT,
                        List.of(),
                        InterfaceChoice.DEFAULT_EXCLUDED),
                java.util.Map.of());
        assertThat(plan.services())
                .isEqualTo(java.util.Map.of(
                        new ServiceKey("default", "web"),
                        java.util.Set.of("tor", "tor-b"),
                        new ServiceKey("default", "v6"),
                        java.util.Set.of("tor6")));
    }

    @org.junit.jupiter.api.Test
    void withoutBgpConfigurationThePlanIsEmpty() {
        assertThat(BgpPlan.compute(
                        new NodePlan.Inputs(
                                "node-1",
                                config(POOL, LeaderChoiceTest.EVERYWHERE),
                                List.of(cluster("10.0.0.1")),
                                THREE,
                                LeaderChoice.Options.DEFAULT,
                                List.of(),
                                InterfaceChoice.DEFAULT_EXCLUDED),
                        java.util.Map.of()))
                .isEqualTo(BgpPlan.EMPTY);
    }
}

package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The pure parts of the router harness: reading the routers' and ip's output, writing their configs. */
class RouterOutputTest {

    @Test
    void anEcmpRouteOfIpJsonHasBothNextHopsAndAHostRouteItsPrefixLength() {
        String json = """
                [{"dst":"198.18.7.200","nhid":23,"protocol":"bgp","metric":20,"flags":[],
                  "nexthops":[{"gateway":"198.18.7.11","dev":"eth0","weight":1,"flags":[]},
                              {"gateway":"198.18.7.12","dev":"eth0","weight":1,"flags":[]}]}]""";

        List<FibRoute> routes = UpstreamRouter.fibRoutes(RouterDaemons.json(json));

        assertThat(routes)
                .containsExactly(new FibRoute(
                        "198.18.7.200/32",
                        List.of(Addressing.literal("198.18.7.11"), Addressing.literal("198.18.7.12")),
                        "bgp"));
    }

    @Test
    void gobgpCommunitiesAreWrittenAsHighColonLow() {
        assertThat(GobgpJson.community(4227072007L)).isEqualTo("64500:7");
    }

    @Test
    void gobgpFibSyncSkipsItsOwnRoutesAndKeepsOnlyTheBestWithoutMultipath() {
        RibPath viaNode1 = path("198.18.7.11", true);
        RibPath viaNode2 = path("198.18.7.12", false);
        RibPath local = path("0.0.0.0", true);

        assertThat(GobgpFibSync.nextHopsByPrefix(List.of(viaNode2, viaNode1, local), true))
                .isEqualTo(Map.of("198.18.7.200/32", List.of(viaNode1.nextHop(), viaNode2.nextHop())));
        assertThat(GobgpFibSync.nextHopsByPrefix(List.of(viaNode2, viaNode1), false))
                .isEqualTo(Map.of("198.18.7.200/32", List.of(viaNode1.nextHop())));
    }

    @Test
    void birdShowsProtocolsAsSessionsWithTheirLastError() {
        String text = """
                BIRD 2.0.12 ready.
                Name       Proto      Table      State  Since         Info
                device1    Device     ---        up     16:00:00.000
                peer_0     BGP        ---        start  16:00:01.000  Active        Received: Bad peer AS
                  BGP state:          Active
                    Neighbor address: 198.18.7.11
                    Neighbor AS:      64513
                    Local AS:         64500
                    Last error:       Received: Bad peer AS
                peer_1     BGP        ---        up     16:00:02.000  Established
                  BGP state:          Established
                    Neighbor address: 198.18.7.12
                """;

        assertThat(BirdText.sessions(text))
                .containsExactly(
                        new RouterSession(Addressing.literal("198.18.7.11"), false, "Active", "Received: Bad peer AS"),
                        new RouterSession(Addressing.literal("198.18.7.12"), true, "Established", ""));
    }

    /** BIRD 2.0.12's protocol of a node whose speaker was killed with graceful restart negotiated (BgpBirdIT). */
    @Test
    void birdSaysWhichNeighbourItKeepsTheRoutesOfWhileItRestarts() {
        String text = """
                BIRD 2.0.12 ready.
                Name       Proto      Table      State  Since         Info
                peer_2     BGP        ---        start  21:33:31.360  Active        Socket: Connection closed
                  BGP state:          Active
                    Neighbor address: 198.18.66.13
                    Neighbor AS:      64512
                    Local AS:         64500
                    Neighbor graceful restart active
                    Connect delay:    4.792/5
                    Restart timer:    119.909/-
                    Last error:       Socket: Connection closed
                  Channel ipv4
                    State:          START
                    Table:          master4
                    Preference:     100
                    Input filter:   ACCEPT
                    Output filter:  (unnamed)
                    Routes:         1 imported, 0 exported, 0 preferred
                    Neighbor GR:    Regular
                """;

        assertThat(BirdText.gracefulRestarts(text))
                .containsExactly(new BirdGracefulRestart(
                        "peer_2", Addressing.literal("198.18.66.13"), true, Optional.empty(), List.of()));
    }

    /** The same protocol once the new speaker process is back and has sent its End-of-RIB (BgpBirdIT), trimmed. */
    @Test
    void birdReadsTheRestartStateAndForwardingBitsOfTheNeighboursOpen() {
        String text = """
                BIRD 2.0.12 ready.
                Name       Proto      Table      State  Since         Info
                peer_2     BGP        ---        up     21:45:15.972  Established
                  BGP state:          Established
                    Neighbor address: 198.18.251.13
                    Neighbor AS:      64512
                    Local AS:         64500
                    Neighbor ID:      198.18.251.13
                    Local capabilities
                      Multiprotocol
                        AF announced: ipv4
                      Route refresh
                      Graceful restart
                        Restart time: 120
                        AF supported: ipv4
                        AF preserved:
                      4-octet AS numbers
                      Enhanced refresh
                      Long-lived graceful restart
                    Neighbor capabilities
                      Multiprotocol
                        AF announced: ipv4 ipv6
                      Route refresh
                      Graceful restart
                        Restart time: 120
                        Restart recovery
                        AF supported: ipv4 ipv6
                        AF preserved: ipv4 ipv6
                      4-octet AS numbers
                    Session:          external AS4
                    Source address:   198.18.251.1
                  Channel ipv4
                    State:          UP
                    Table:          master4
                    BGP Next hop:   198.18.251.1
                peer_0     BGP        ---        up     21:45:07.700  Established
                  BGP state:          Established
                    Neighbor address: 198.18.251.11
                    Neighbor capabilities
                      Multiprotocol
                        AF announced: ipv4 ipv6
                      Graceful restart
                        Restart time: 120
                        AF supported: ipv4 ipv6
                        AF preserved: ipv4 ipv6
                    Session:          external AS4
                """;

        assertThat(BirdText.gracefulRestarts(text))
                .containsExactly(
                        new BirdGracefulRestart(
                                "peer_2",
                                Addressing.literal("198.18.251.13"),
                                false,
                                Optional.of(true),
                                List.of("ipv4", "ipv6")),
                        new BirdGracefulRestart(
                                "peer_0",
                                Addressing.literal("198.18.251.11"),
                                false,
                                Optional.of(false),
                                List.of("ipv4", "ipv6")));
    }

    @Test
    void frrConfigGivesARangesGroupItsAsBeforeTheListenRange() {
        String config = FrrConfig.bgpd(
                RouterConfig.of(
                        64500, Addressing.literal("198.18.7.1"), List.of(RouterPeer.range("198.18.7.0/24", 64512))),
                "router");

        assertThat(config.indexOf("neighbor range-0 remote-as 64512"))
                .isPositive()
                .isLessThan(config.indexOf("bgp listen range 198.18.7.0/24 peer-group range-0"));
    }

    @Test
    void gobgpRefusesBfdItDoesNotHave() {
        RouterConfig config = RouterConfig.of(
                64500,
                Addressing.literal("198.18.7.1"),
                List.of(RouterPeer.at(Addressing.literal("198.18.7.11"), 64512).withBfd(BfdTimers.DEFAULT)));

        assertThatThrownBy(() -> GobgpConfig.toml(config)).hasMessageContaining("GoBGP has no BFD");
    }

    private static RibPath path(String nextHop, boolean best) {
        return new RibPath("198.18.7.200/32", Addressing.literal(nextHop), best, OptionalLong.empty(), List.of());
    }

    /** FRR 8.4's paths to a Service while the speaker of 198.18.231.13 was killed (BgpIT), trimmed to two paths. */
    @Test
    void frrSaysWhichPathsItKeepsAsStale() {
        String json = """
                {"prefix":"198.18.231.240/32","version":1,"paths":[
                  {"aspath":{"string":"64512"},"stale":true,"origin":"IGP","valid":true,"multipath":true,
                   "gracefulRestartSecondsRemaining":119,
                   "nexthops":[{"ip":"198.18.231.13","afi":"ipv4","metric":0,"accessible":true,"used":true}],
                   "peer":{"peerId":"198.18.231.13","routerId":"198.18.231.13","type":"external"}},
                  {"aspath":{"string":"64512"},"origin":"IGP","valid":true,"multipath":true,
                   "bestpath":{"overall":true,"selectionReason":"Router ID"},
                   "nexthops":[{"ip":"198.18.231.11","afi":"ipv4","metric":0,"accessible":true,"used":true}],
                   "peer":{"peerId":"198.18.231.11","routerId":"198.18.231.11","type":"external"}}]}""";

        assertThat(FrrJson.staleNextHops(RouterDaemons.json(json)))
                .containsExactly(Addressing.literal("198.18.231.13"));
        assertThat(FrrJson.paths("198.18.231.240/32", RouterDaemons.json(json)))
                .extracting(RibPath::nextHop)
                .containsExactly(Addressing.literal("198.18.231.13"), Addressing.literal("198.18.231.11"));
    }
}

package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.CURL;
import static io.lbk8s.e2e.BgpSandbox.NODE_AS;
import static io.lbk8s.e2e.BgpSandbox.POOL;
import static io.lbk8s.e2e.BgpSandbox.ROUTER_AS;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static io.lbk8s.e2e.BgpSandbox.prefix;
import static io.lbk8s.e2e.BgpSandbox.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.RouterSession;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * BGP mode as a user with a router sees it: three nodes run lbk8s speakers configured by MetalLB's own BGPPeer,
 * BGPAdvertisement and BFDProfile objects; FRR is the upstream router, with a client behind it on another subnet.
 * Every check is made on the router (its BGP table and its kernel's routes) or from the remote client with curl.
 */
class BgpIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withBfd("bgp").advertisingCommunity("65000:7");

    @Test
    void everyNodeAdvertisesTheServiceAndTheRouterSpreadsTheRemoteClientsTraffic() {
        BgpRouter frr = startFrr();
        InetAddress ip = bgp.loadBalancer("web");

        List<RibPath> paths = frr.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON);
        assertThat(paths).extracting(RibPath::nextHop).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
        assertThat(paths).allSatisfy(p -> assertThat(p.communities()).containsExactly("65000:7"));
        bgp.awaitFibOverEveryNode(ip, "over 3");

        Set<String> answered = new HashSet<>();
        for (int i = 0; i < 60 && answered.size() < 3; i++) {
            bgp.router().remoteClient().curl(ip, CURL).ifPresent(answered::add);
        }
        assertThat(answered)
                .as("nodes that answered the remote client through the router (ECMP)")
                .isNotEmpty()
                .allSatisfy(body -> assertThat(body).startsWith("node-"));
    }

    @ParameterizedTest
    @EnumSource(
            value = RouterKind.class,
            names = {"BIRD", "GOBGP"})
    void birdAndGobgpAsTheRouterGetTheRouteFromEveryNode(RouterKind kind) {
        BgpRouter upstream = bgp.startRouter(kind, bgp.ipv4Peers(false), false);
        InetAddress ip = bgp.loadBalancer("via-" + kind.name().toLowerCase(Locale.ROOT));

        assertThat(upstream.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
        bgp.awaitFibOverEveryNode(ip, "over 3");
        assertThat(bgp.router().remoteClient().curl(ip, CURL))
                .hasValueSatisfying(b -> assertThat(b).startsWith("node-"));
    }

    @Test
    void anIpv6AddressIsAdvertisedOverAnIpv6SessionAndAnswered() {
        BgpRouter frr = startFrr();
        Sandbox cluster = bgp.cluster();
        cluster.createMetallb(
                "BGPPeer",
                "router-v6",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '"
                        + text(bgp.router().ipv6()) + "'}");
        cluster.createMetallb(
                "IPAddressPool",
                "bgp-v6",
                "{addresses: ['" + text(bgp.network().ipv6PoolAddress(40)) + "/128'], autoAssign: false}");
        cluster.createMetallb("BGPAdvertisement", "bgp-v6", "{ipAddressPools: [bgp-v6], peers: [router-v6]}");
        try {
            for (TestNode node : bgp.network().nodes()) {
                frr.awaitEstablished(node.ipv6(), SOON);
            }
            InetAddress ip = bgp.loadBalancer("web-v6", "Cluster", true, "bgp-v6", "IPv6");
            String v6prefix = text(ip) + "/128";

            assertThat(frr.awaitRoutes(v6prefix, p -> p.size() == 3, "from all three nodes", SOON))
                    .extracting(RibPath::nextHop)
                    .containsExactlyInAnyOrderElementsOf(
                            bgp.network().nodes().stream().map(TestNode::ipv6).toList());
            bgp.router().awaitFib(v6prefix, r -> !r.isEmpty(), "installed", SOON);
            assertThat(bgp.router().remoteClient().curl(ip, CURL))
                    .hasValueSatisfying(b -> assertThat(b).startsWith("node-"));
        } finally {
            delete("v1beta2", "BGPPeer", "router-v6");
        }
    }

    @Test
    void aPasswordSignsTheSessionsWithTcpMd5() {
        List<RouterPeer> peers = bgp.ipv4Peers(false).stream()
                .map(p -> p.withPassword("s3cret-md5"))
                .toList();
        BgpRouter frr = bgp.router().start(RouterKind.FRR, bgp.routerConfig(peers, false));
        // each connection attempt gives up after 2 s instead of 120 s, so that the user hears why within the test
        bgp.editPeer(spec -> spec.put("connectTime", "2s"));
        InetAddress ip = bgp.loadBalancer("signed");
        // the BGPPeer has no password yet: the router, which expects one, never hears our SYNs
        Sandbox.poll(
                "a BGPSessionDown Event on every node that points at the password",
                SOON,
                () -> bgp.network().nodes().stream()
                        .allMatch(n -> bgp.cluster().events("", n.name()).stream()
                                .anyMatch(e -> "Warning".equals(e.getType())
                                        && "BGPSessionDown".equals(e.getReason())
                                        && e.getMessage() != null
                                        && e.getMessage()
                                                .endsWith(" within 2000 ms: the peer does not answer, or expects"
                                                        + " another TCP MD5 password (or none)"))));
        assertThat(frr.sessions()).noneMatch(RouterSession::established);

        bgp.editPeer(spec -> spec.put("password", "s3cret-md5"));
        bgp.awaitEstablishedWithEveryNode(frr);
        assertThat(frr.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                .hasSize(3);
    }

    @Test
    void withExternalTrafficPolicyLocalOnlyTheNodeWithAReadyEndpointAdvertises() {
        BgpRouter frr = startFrr();
        TestNode withEndpoint = bgp.node(1);
        // no selector: the test writes the Service's one endpoint, on node-2, as the EndpointSlice controller would
        InetAddress ip = bgp.loadBalancer("local", "Local", false, POOL, "IPv4");
        OneEndpoint.on(bgp.cluster(), "local", withEndpoint, true);

        assertThat(frr.awaitRoutes(prefix(ip), p -> p.size() == 1, "from the node with the endpoint", SOON))
                .extracting(RibPath::nextHop)
                .containsExactly(withEndpoint.ipv4());
        assertThat(bgp.router().remoteClient().curl(ip, CURL)).contains(withEndpoint.backendBody());

        OneEndpoint.on(bgp.cluster(), "local", withEndpoint, false);
        frr.awaitRoutes(prefix(ip), List::isEmpty, "withdrawn once the endpoint is not ready", SOON);
    }

    @Test
    void aFrozenNodesRouteLeavesTheRouterWithinAboutASecondThroughBfd() {
        BgpRouter frr = startFrr();
        InetAddress ip = bgp.loadBalancerOverEveryNode("frozen");
        TestNode victim = bgp.node(0);
        BgpSandbox.awaitBfdUp(frr);

        Duration gone = bgp.freezeAndTimeFibDrop(victim, ip, "without the frozen node");
        System.out.println("BgpIT: the frozen node's route left the router's FIB after " + gone.toMillis() + " ms");

        assertThat(gone).as("frozen node's route gone from the router's FIB").isLessThan(Duration.ofSeconds(3));
        assertThat(bgp.router().fibNextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bgp.router().remoteClient().curl(ip, CURL)).isPresent();

        bgp.network().thaw(victim);
        bgp.awaitFibOverEveryNode(ip, "back over 3");
    }

    /**
     * A speaker starved of CPU for 400 ms (its process stopped, then let run): its failure detector falls silent, its
     * peers declare it dead and hold it back when it is heard again, which in layer 2 fences it from answering ARP. In
     * BGP every node advertises anyway and the router judges a node's liveness itself (BFD here: 300 ms x 3), so the
     * node's next hop must never leave the router's FIB.
     */
    @Test
    void aSpeakerStarvedForLessThanBfdNoticesKeepsItsNextHopOnTheRouter() throws Exception {
        BgpRouter frr = startFrr();
        InetAddress ip = bgp.loadBalancerOverEveryNode("starved");
        TestNode victim = bgp.node(1);
        BgpSandbox.awaitBfdUp(frr);
        int resumedBefore = resumes(victim);

        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            for (int i = 0; i < 3; i++) {
                bgp.pauseSpeaker(victim, Duration.ofMillis(400));
                Thread.sleep(3_000); // its peers hold it back for a while after they heard it again
            }
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpIT: speaker of " + victim.name() + " stopped 3 times for 400 ms; the router's FIB"
                    + " sampled " + seen.samples() + " times, the node's next hop missing in " + seen);
            assertThat(resumes(victim) - resumedBefore)
                    .as("pauses the speaker's failure detector noticed (\"resuming after a pause\")")
                    .isPositive();
            seen.assertNeverMissing();
        }
        assertThat(frr.bfdPeers().stream().filter(RouterBfdPeer::up).count())
                .as("the router's BFD sessions Up")
                .isEqualTo(3);
    }

    /** How often the speaker on {@code node} has logged that its failure detector resumed after a pause. */
    private static int resumes(TestNode node) {
        return (int) bgp.cluster()
                .speaker(node)
                .log()
                .lines()
                .filter(l -> l.contains("resuming after a pause"))
                .count();
    }

    @Test
    void aSpeakerThatStopsWithdrawsAtOnceInsteadOfAfterTheHoldTime() {
        BgpRouter frr = startFrr();
        InetAddress ip = bgp.loadBalancerOverEveryNode("stopping");
        TestNode leaving = bgp.node(1);

        bgp.cluster().speaker(leaving).stop(Duration.ofSeconds(10));

        // the hold time is 90 s: the route leaves in seconds only because the speaker said goodbye (Cease)
        frr.awaitRoutes(
                prefix(ip),
                p -> p.size() == 2 && p.stream().noneMatch(r -> r.nextHop().equals(leaving.ipv4())),
                "without the stopped node",
                Duration.ofSeconds(5));
    }

    @Test
    void aPeerWithTheWrongAsIsReportedOnTheNode() {
        startFrr();
        bgp.cluster()
                .createMetallb(
                        "BGPPeer",
                        "wrong-as",
                        "{myASN: " + NODE_AS + ", peerASN: 64999, peerAddress: '"
                                + text(bgp.router().ipv6()) + "'}");
        try {
            Sandbox.poll(
                    "a BGPSessionDown event that names the AS",
                    SOON,
                    () -> bgp.network().nodes().stream()
                            .flatMap(n -> bgp.cluster().events("", n.name()).stream())
                            .map(Event::getMessage)
                            .anyMatch(m -> m != null && m.contains("64999")));
        } finally {
            delete("v1beta2", "BGPPeer", "wrong-as");
        }
    }

    @Test
    void withGracefulRestartAKilledSpeakersNextHopStaysOnTheRouterUntilItIsBack() throws Exception {
        bgp.peerWith(true, false);
        FrrRouter frr = bgp.startFrr(false, true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("restarting");
        TestNode victim = bgp.node(2);

        // the router restarts (its routes gone with it): the same speakers send their table again
        frr.close();
        frr = bgp.startFrr(false, true);
        bgp.awaitFibOverEveryNode(ip, "over 3 again");
        assertThat(frr.restartStateReceived(victim.ipv4()))
                .as("Restart State in the OPEN of a speaker that has not restarted")
                .contains(false);

        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            long killedAt = System.nanoTime();
            bgp.cluster().speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
            bgp.awaitSessionDownAndPathStale(frr, victim, ip);
            System.out.println("BgpIT: FRR while the speaker is dead: "
                    + frr.vtysh("show bgp ipv4 unicast " + prefix(ip) + " json"));
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered while the speaker is dead")
                    .isEqualTo(10);
            assertThat(frr.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());

            bgp.restartKilledSpeaker(victim, frr);
            bgp.awaitPathsFreshFromEveryNode(frr, ip, "the restarted node's path fresh again");
            Duration outage = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(frr.restartStateReceived(victim.ipv4()))
                    .as("Restart State of the first OPEN of the new speaker process")
                    .contains(true);
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpIT: speaker of " + victim.name() + " killed and back after "
                    + outage.toMillis() + " ms; the router's FIB sampled " + seen.samples()
                    + " times, the node's next hop missing in " + seen);
            seen.assertNeverMissing();
        }
        assertThat(bgp.router().fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersNextHopLeavesTheRouterAtOnce() {
        bgp.peerWith(false, false);
        BgpRouter frr = bgp.startFrr(false, false);
        InetAddress ip = bgp.loadBalancerOverEveryNode("not-restarting");
        TestNode victim = bgp.node(2);

        // neither BFD nor the 90 s hold time: the router drops the routes when the kernel closes the connection
        Duration gone = bgp.killSpeakerAndTimeFibDrop(victim, ip, "without the killed node");
        System.out.println("BgpIT: without graceful restart the killed speaker's next hop left the FIB after "
                + gone.toMillis() + " ms");
        assertThat(gone).isLessThan(Duration.ofSeconds(3));
        assertThat(frr.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
    }

    @Test
    void whenFrrsBgpdRestartsGracefullyTheSpeakersSendTheirRoutesAgainAndTrafficFlowsThroughout() throws Exception {
        bgp.peerWith(true, false);
        FrrRouter frr = bgp.startFrr(false, true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("router-restarts");
        TestNode watched = bgp.node(0);

        try (FibWatch fib = bgp.watchFib(ip, watched)) {
            long killedAt = System.nanoTime();
            frr.killBgpd(); // zebra runs on, keeping bgpd's routes for its graceful restart
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered through the router while its bgpd is dead")
                    .isEqualTo(10);
            assertThat(bgp.router().fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());

            frr.startBgpd();
            long startedAt = System.nanoTime();
            bgp.awaitEstablishedWithEveryNode(frr);
            Sandbox.poll(
                    "every speaker's End-of-RIB received by the restarted bgpd and its paths back",
                    SOON,
                    () -> bgp.network().nodes().stream().allMatch(n -> frr.endOfRibReceived(n.ipv4()))
                            && frr.nextHops(prefix(ip)).size() == 3);
            Duration back = Duration.ofNanos(System.nanoTime() - startedAt);
            System.out.println("BgpIT: FRR's restarted bgpd once the speakers are back: "
                    + frr.vtysh("show bgp neighbors " + text(watched.ipv4())) + "\n"
                    + frr.vtysh("show ip route " + prefix(ip) + " json"));
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpIT: bgpd killed; " + bgp.network().nodes().size()
                    + " speakers' routes and End-of-RIB back " + back.toMillis() + " ms after bgpd started again ("
                    + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms after the kill); the FIB"
                    + " sampled " + seen.samples() + " times, " + watched.name() + "'s next hop missing in "
                    + seen);
            seen.assertNeverMissing();
            assertThat(frr.staleNextHops(prefix(ip))).isEmpty();
        }
        bgp.assertRoutedOverEveryNodeAndAnswered(frr, ip);
    }

    @Test
    void withGracefulRestartAndBfdAKilledSpeakersPathStaysOnFrrThoughItsBfdSessionDiesWithIt() throws Exception {
        bgp.peerWith(true, true);
        FrrRouter frr = startFrrWithBfdAndGracefulRestart();
        InetAddress ip = bgp.loadBalancerOverEveryNode("restarting-with-bfd");
        TestNode victim = bgp.node(2);

        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            long killedAt = System.nanoTime();
            bgp.cluster().speaker(victim).kill(); // its BFD session dies with it: no more packets, no AdminDown
            bgp.awaitBfdDownAndPathStale(frr, victim, ip);
            Thread.sleep(2_000); // well past BFD's 900 ms detection time: the path is still there
            System.out.println("BgpIT: FRR with BFD while the speaker is dead: "
                    + frr.vtysh("show bgp neighbors " + text(victim.ipv4())));
            assertThat(frr.staleNextHops(prefix(ip))).containsExactly(victim.ipv4());
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered while the speaker and its BFD session are dead")
                    .isEqualTo(10);

            bgp.restartKilledSpeaker(victim, frr);
            Sandbox.poll(
                    "the restarted node's path fresh again and its BFD session Up",
                    SOON,
                    () -> frr.staleNextHops(prefix(ip)).isEmpty()
                            && frr.nextHops(prefix(ip)).size() == 3
                            && !BgpSandbox.bfdDown(frr, victim));
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpIT: with BFD, speaker of " + victim.name() + " killed and back after "
                    + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms; the FIB sampled "
                    + seen.samples() + " times, the node's next hop missing in " + seen);
            seen.assertNeverMissing();
        }
    }

    @Test
    void withGracefulRestartAndBfdAFrozenNodesPathStillLeavesFrrWithinAboutASecond() {
        bgp.peerWith(true, true);
        FrrRouter frr = startFrrWithBfdAndGracefulRestart();
        // no connection closed: BFD's verdict ends the session while it is Established, and FRR keeps nothing
        bgp.assertFrozenNodeLeavesDespiteGracefulRestart(frr, "frozen-with-gr");
    }

    /** FRR peering with every node over IPv4 with BFD (300 ms × 3) and over IPv6 without, no graceful restart. */
    private static BgpRouter startFrr() {
        List<RouterPeer> peers = bgp.network().nodes().stream()
                .flatMap(n -> Stream.of(
                        RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT), RouterPeer.at(n.ipv6(), NODE_AS)))
                .toList();
        return bgp.startRouter(RouterKind.FRR, peers, false);
    }

    /** FRR with graceful restart and BFD at 300 ms × 3 for the three nodes, every BFD session Up. */
    private static FrrRouter startFrrWithBfdAndGracefulRestart() {
        FrrRouter frr = bgp.startFrr(true, true);
        BgpSandbox.awaitBfdUp(frr);
        return frr;
    }

    private static void delete(String version, String kind, String name) {
        bgp.cluster()
                .client
                .genericKubernetesResources("metallb.io/" + version, kind)
                .inNamespace(Sandbox.NAMESPACE)
                .withName(name)
                .delete();
    }
}

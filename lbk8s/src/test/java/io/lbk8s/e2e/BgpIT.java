package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * BGP mode as a user with a router sees it: three nodes run lbk8s speakers configured by MetalLB's own BGPPeer,
 * BGPAdvertisement and BFDProfile objects; FRR is the upstream router, with a client behind it on another subnet.
 * Every check is made on the router (its BGP table and its kernel's routes) or from the remote client with curl.
 */
class BgpIT {
    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    static final Duration SOON = Duration.ofSeconds(30);
    static final Duration CURL = Duration.ofSeconds(2);

    static Sandbox cluster;
    static TestNetwork network;
    static UpstreamRouter router;

    @BeforeAll
    static void startCluster() throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(Sandbox.REPO.resolve("lbk8s/target/e2e-logs/bgp-" + System.currentTimeMillis()));
        network = cluster.network;
        router = network.router();
        cluster.createMetallb(
                "BFDProfile", "fast", "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        cluster.createMetallb(
                "BGPPeer",
                "router",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '" + text(router.ipv4())
                        + "', bfdProfile: fast, holdTime: 90s}");
        // 20 addresses: every test's Services stay until the class ends
        cluster.createMetallb("IPAddressPool", "bgp", "{addresses: ['" + range(30, 49) + "']}");
        cluster.createMetallb("BGPAdvertisement", "bgp", "{ipAddressPools: [bgp], communities: ['65000:7']}");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void stopRouter() {
        BgpSandbox.restore(cluster, router);
    }

    @Test
    void everyNodeAdvertisesTheServiceAndTheRouterSpreadsTheRemoteClientsTraffic() {
        BgpRouter frr = startFrr();
        InetAddress ip = loadBalancer("web", "Cluster");

        List<RibPath> paths = frr.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON);
        assertThat(paths).extracting(RibPath::nextHop).containsExactlyInAnyOrderElementsOf(nodeAddresses());
        assertThat(paths).allSatisfy(p -> assertThat(p.communities()).containsExactly("65000:7"));
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);

        Set<String> answered = new HashSet<>();
        for (int i = 0; i < 60 && answered.size() < 3; i++) {
            router.remoteClient().curl(ip, CURL).ifPresent(answered::add);
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
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS))
                .toList();
        BgpRouter upstream = router.start(kind, RouterConfig.of(ROUTER_AS, router.ipv4(), peers));
        for (TestNode node : network.nodes()) {
            upstream.awaitEstablished(node.ipv4(), SOON);
        }
        InetAddress ip = loadBalancer("via-" + kind.name().toLowerCase(java.util.Locale.ROOT), "Cluster");

        assertThat(upstream.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(nodeAddresses());
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
        assertThat(router.remoteClient().curl(ip, CURL))
                .hasValueSatisfying(b -> assertThat(b).startsWith("node-"));
    }

    @Test
    void anIpv6AddressIsAdvertisedOverAnIpv6SessionAndAnswered() {
        BgpRouter frr = startFrr();
        cluster.createMetallb(
                "BGPPeer",
                "router-v6",
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '" + text(router.ipv6()) + "'}");
        cluster.createMetallb(
                "IPAddressPool",
                "bgp-v6",
                "{addresses: ['" + text(network.ipv6PoolAddress(40)) + "/128'], autoAssign: false}");
        cluster.createMetallb("BGPAdvertisement", "bgp-v6", "{ipAddressPools: [bgp-v6], peers: [router-v6]}");
        try {
            for (TestNode node : network.nodes()) {
                frr.awaitEstablished(node.ipv6(), SOON);
            }
            InetAddress ip = loadBalancer("web-v6", "Cluster", true, "bgp-v6", "IPv6");
            String v6prefix = text(ip) + "/128";

            assertThat(frr.awaitRoutes(v6prefix, p -> p.size() == 3, "from all three nodes", SOON))
                    .extracting(RibPath::nextHop)
                    .containsExactlyInAnyOrderElementsOf(
                            network.nodes().stream().map(TestNode::ipv6).toList());
            router.awaitFib(v6prefix, r -> !r.isEmpty(), "installed", SOON);
            assertThat(router.remoteClient().curl(ip, CURL))
                    .hasValueSatisfying(b -> assertThat(b).startsWith("node-"));
        } finally {
            delete("v1beta2", "BGPPeer", "router-v6");
        }
    }

    @Test
    void aPasswordSignsTheSessionsWithTcpMd5() {
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withPassword("s3cret-md5"))
                .toList();
        BgpRouter frr = router.start(RouterKind.FRR, RouterConfig.of(ROUTER_AS, router.ipv4(), peers));
        // each connection attempt gives up after 2 s instead of 120 s, so that the user hears why within the test
        editPeer(spec -> spec.put("connectTime", "2s"));
        InetAddress ip = loadBalancer("signed", "Cluster");
        try {
            // the BGPPeer has no password yet: the router, which expects one, never hears our SYNs
            Sandbox.poll(
                    "a BGPSessionDown Event on every node that points at the password",
                    SOON,
                    () -> network.nodes().stream()
                            .allMatch(n -> cluster.events("", n.name()).stream()
                                    .anyMatch(e -> "Warning".equals(e.getType())
                                            && "BGPSessionDown".equals(e.getReason())
                                            && e.getMessage() != null
                                            && e.getMessage()
                                                    .endsWith(" within 2000 ms: the peer does not answer, or expects"
                                                            + " another TCP MD5 password (or none)"))));
            assertThat(frr.sessions()).noneMatch(io.lbk8s.testkit.net.RouterSession::established);

            setPassword("s3cret-md5");
            for (TestNode node : network.nodes()) {
                frr.awaitEstablished(node.ipv4(), SOON);
            }
            assertThat(frr.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                    .hasSize(3);
        } finally {
            editPeer(spec -> {
                spec.remove("password");
                spec.remove("connectTime");
            });
        }
    }

    @Test
    void withExternalTrafficPolicyLocalOnlyTheNodeWithAReadyEndpointAdvertises() {
        BgpRouter frr = startFrr();
        TestNode withEndpoint = network.nodes().get(1);
        // no selector: the test writes the Service's one endpoint, on node-2, as the EndpointSlice controller would
        InetAddress ip = loadBalancer("local", "Local", false);
        OneEndpoint.on(cluster, "local", withEndpoint, true);

        assertThat(frr.awaitRoutes(prefix(ip), p -> p.size() == 1, "from the node with the endpoint", SOON))
                .extracting(RibPath::nextHop)
                .containsExactly(withEndpoint.ipv4());
        assertThat(router.remoteClient().curl(ip, CURL)).contains(withEndpoint.backendBody());

        OneEndpoint.on(cluster, "local", withEndpoint, false);
        frr.awaitRoutes(prefix(ip), List::isEmpty, "withdrawn once the endpoint is not ready", SOON);
    }

    @Test
    void aFrozenNodesRouteLeavesTheRouterWithinAboutASecondThroughBfd() {
        BgpRouter frr = startFrr();
        InetAddress ip = loadBalancer("frozen", "Cluster");
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
        TestNode victim = network.nodes().getFirst();
        Sandbox.poll(
                "the router's BFD sessions with the three nodes Up",
                SOON,
                () -> frr.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);

        long frozenAt = System.nanoTime();
        network.freeze(victim);
        router.awaitFib(
                prefix(ip),
                r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                "without the frozen node",
                Duration.ofSeconds(5));
        Duration gone = Duration.ofNanos(System.nanoTime() - frozenAt);
        System.out.println("BgpIT: the frozen node's route left the router's FIB after " + gone.toMillis() + " ms");

        assertThat(gone).as("frozen node's route gone from the router's FIB").isLessThan(Duration.ofSeconds(3));
        assertThat(router.fibNextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(router.remoteClient().curl(ip, CURL)).isPresent();

        network.thaw(victim);
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "back over 3", SOON);
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
        InetAddress ip = loadBalancer("starved", "Cluster");
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
        TestNode victim = network.nodes().get(1);
        Sandbox.poll(
                "the router's BFD sessions with the three nodes Up",
                SOON,
                () -> frr.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);
        int resumedBefore = resumes(victim);

        try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
            for (int i = 0; i < 3; i++) {
                BgpSandbox.pauseSpeaker(cluster, victim, Duration.ofMillis(400));
                Thread.sleep(3_000); // its peers hold it back for a while after they heard it again
            }
            BgpSandbox.FibWatch.Seen seen = fib.stop();
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
        return (int) cluster.speaker(node)
                .log()
                .lines()
                .filter(l -> l.contains("resuming after a pause"))
                .count();
    }

    @Test
    void aSpeakerThatStopsWithdrawsAtOnceInsteadOfAfterTheHoldTime() {
        BgpRouter frr = startFrr();
        InetAddress ip = loadBalancer("stopping", "Cluster");
        router.awaitFib(
                prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
        TestNode leaving = network.nodes().get(1);

        cluster.speaker(leaving).stop(Duration.ofSeconds(10));

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
        cluster.createMetallb(
                "BGPPeer",
                "wrong-as",
                "{myASN: " + NODE_AS + ", peerASN: 64999, peerAddress: '" + text(router.ipv6()) + "'}");
        try {
            Sandbox.poll(
                    "a BGPSessionDown event that names the AS",
                    SOON,
                    () -> network.nodes().stream()
                            .flatMap(n -> cluster.events("", n.name()).stream())
                            .map(Event::getMessage)
                            .anyMatch(m -> m != null && m.contains("64999")));
        } finally {
            delete("v1beta2", "BGPPeer", "wrong-as");
        }
    }

    @Test
    void withGracefulRestartAKilledSpeakersNextHopStaysOnTheRouterUntilItIsBack() throws Exception {
        peerWith(true, false);
        try {
            FrrRouter frr = startFrrWithoutBfd(true);
            InetAddress ip = loadBalancer("restarting", "Cluster");
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            // the router restarts (its routes gone with it): the same speakers send their table again
            frr.close();
            frr = startFrrWithoutBfd(true);
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3 again", SOON);
            assertThat(frr.restartStateReceived(victim.ipv4()))
                    .as("Restart State in the OPEN of a speaker that has not restarted")
                    .contains(false);

            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
                long killedAt = System.nanoTime();
                cluster.speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
                FrrRouter helper = frr;
                Sandbox.poll(
                        "FRR to see the killed node's session down and keep its path as stale",
                        Duration.ofSeconds(5),
                        () -> helper.session(victim.ipv4())
                                        .map(s -> !s.established())
                                        .orElse(false)
                                && helper.staleNextHops(prefix(ip)).contains(victim.ipv4()));
                System.out.println("BgpIT: FRR while the speaker is dead: "
                        + helper.vtysh("show bgp ipv4 unicast " + prefix(ip) + " json"));
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered while the speaker is dead")
                        .isEqualTo(10);
                assertThat(frr.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());

                cluster.startSpeaker(victim);
                cluster.awaitSpeakerReadyAndMarkPod(victim);
                frr.awaitEstablished(victim.ipv4(), SOON);
                Sandbox.poll(
                        "the restarted node's path fresh again",
                        SOON,
                        () -> helper.staleNextHops(prefix(ip)).isEmpty()
                                && helper.nextHops(prefix(ip)).size() == 3);
                Duration outage = Duration.ofNanos(System.nanoTime() - killedAt);
                assertThat(frr.restartStateReceived(victim.ipv4()))
                        .as("Restart State of the first OPEN of the new speaker process")
                        .contains(true);
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println("BgpIT: speaker of " + victim.name() + " killed and back after "
                        + outage.toMillis() + " ms; the router's FIB sampled " + seen.samples()
                        + " times, the node's next hop missing in " + seen);
                seen.assertNeverMissing();
            }
            assertThat(router.fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());
        } finally {
            peerWith(false, true);
        }
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersNextHopLeavesTheRouterAtOnce() {
        peerWith(false, false);
        try {
            BgpRouter frr = startFrrWithoutBfd(false);
            InetAddress ip = loadBalancer("not-restarting", "Cluster");
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            long killedAt = System.nanoTime();
            cluster.speaker(victim).kill();
            // neither BFD nor the 90 s hold time: the router drops the routes when the kernel closes the connection
            router.awaitFib(
                    prefix(ip),
                    r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                    "without the killed node",
                    Duration.ofSeconds(5));
            Duration gone = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.println("BgpIT: without graceful restart the killed speaker's next hop left the FIB after "
                    + gone.toMillis() + " ms");
            assertThat(gone).isLessThan(Duration.ofSeconds(3));
            assertThat(frr.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        } finally {
            peerWith(false, true);
        }
    }

    @Test
    void whenFrrsBgpdRestartsGracefullyTheSpeakersSendTheirRoutesAgainAndTrafficFlowsThroughout() throws Exception {
        peerWith(true, false);
        try {
            FrrRouter frr = startFrrWithoutBfd(true);
            InetAddress ip = loadBalancer("router-restarts", "Cluster");
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
            TestNode watched = network.nodes().getFirst();

            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), watched.ipv4())) {
                long killedAt = System.nanoTime();
                frr.killBgpd(); // zebra runs on, keeping bgpd's routes for its graceful restart
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered through the router while its bgpd is dead")
                        .isEqualTo(10);
                assertThat(router.fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());

                frr.startBgpd();
                long startedAt = System.nanoTime();
                for (TestNode node : network.nodes()) {
                    frr.awaitEstablished(node.ipv4(), SOON);
                }
                FrrRouter restarted = frr;
                Sandbox.poll(
                        "every speaker's End-of-RIB received by the restarted bgpd and its paths back",
                        SOON,
                        () -> network.nodes().stream().allMatch(n -> restarted.endOfRibReceived(n.ipv4()))
                                && restarted.nextHops(prefix(ip)).size() == 3);
                Duration back = Duration.ofNanos(System.nanoTime() - startedAt);
                System.out.println("BgpIT: FRR's restarted bgpd once the speakers are back: "
                        + frr.vtysh("show bgp neighbors " + text(watched.ipv4())) + "\n"
                        + frr.vtysh("show ip route " + prefix(ip) + " json"));
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println("BgpIT: bgpd killed; " + network.nodes().size()
                        + " speakers' routes and End-of-RIB back " + back.toMillis() + " ms after bgpd started again ("
                        + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms after the kill); the FIB"
                        + " sampled " + seen.samples() + " times, " + watched.name() + "'s next hop missing in "
                        + seen);
                seen.assertNeverMissing();
                assertThat(frr.staleNextHops(prefix(ip))).isEmpty();
            }
            assertThat(frr.routes(prefix(ip)))
                    .extracting(RibPath::nextHop)
                    .containsExactlyInAnyOrderElementsOf(nodeAddresses());
            assertThat(router.fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());
            assertThat(BgpSandbox.curlsAnswered(router, ip, 5, CURL)).isEqualTo(5);
        } finally {
            peerWith(false, true);
        }
    }

    @Test
    void withGracefulRestartAndBfdAKilledSpeakersPathStaysOnFrrThoughItsBfdSessionDiesWithIt() throws Exception {
        peerWith(true, true);
        try {
            FrrRouter frr = startFrrWithBfdAndGracefulRestart();
            InetAddress ip = loadBalancer("restarting-with-bfd", "Cluster");
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
                long killedAt = System.nanoTime();
                cluster.speaker(victim).kill(); // its BFD session dies with it: no more packets, no AdminDown
                Sandbox.poll(
                        "FRR to see the killed node's BFD session down and keep its path as stale",
                        Duration.ofSeconds(5),
                        () -> bfdDown(frr, victim)
                                && frr.staleNextHops(prefix(ip)).contains(victim.ipv4()));
                Thread.sleep(2_000); // well past BFD's 900 ms detection time: the path is still there
                System.out.println("BgpIT: FRR with BFD while the speaker is dead: "
                        + frr.vtysh("show bgp neighbors " + text(victim.ipv4())));
                assertThat(frr.staleNextHops(prefix(ip))).containsExactly(victim.ipv4());
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered while the speaker and its BFD session are dead")
                        .isEqualTo(10);

                cluster.startSpeaker(victim);
                cluster.awaitSpeakerReadyAndMarkPod(victim);
                frr.awaitEstablished(victim.ipv4(), SOON);
                Sandbox.poll(
                        "the restarted node's path fresh again and its BFD session Up",
                        SOON,
                        () -> frr.staleNextHops(prefix(ip)).isEmpty()
                                && frr.nextHops(prefix(ip)).size() == 3
                                && !bfdDown(frr, victim));
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println("BgpIT: with BFD, speaker of " + victim.name() + " killed and back after "
                        + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms; the FIB sampled "
                        + seen.samples() + " times, the node's next hop missing in " + seen);
                seen.assertNeverMissing();
            }
        } finally {
            peerWith(false, true);
        }
    }

    @Test
    void withGracefulRestartAndBfdAFrozenNodesPathStillLeavesFrrWithinAboutASecond() {
        peerWith(true, true);
        try {
            FrrRouter frr = startFrrWithBfdAndGracefulRestart();
            InetAddress ip = loadBalancer("frozen-with-gr", "Cluster");
            router.awaitFib(
                    prefix(ip), r -> r.size() == 1 && r.getFirst().nextHops().size() == 3, "over 3", SOON);
            TestNode victim = network.nodes().getFirst();

            long frozenAt = System.nanoTime();
            network.freeze(victim);
            // no connection closed: BFD's verdict ends the session while it is Established, and FRR keeps nothing
            router.awaitFib(
                    prefix(ip),
                    r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                    "without the frozen node",
                    Duration.ofSeconds(5));
            Duration gone = Duration.ofNanos(System.nanoTime() - frozenAt);
            System.out.println("BgpIT: with BFD and graceful restart, the frozen node's next hop left the FIB after "
                    + gone.toMillis() + " ms\n" + frr.vtysh("show bgp neighbors " + text(victim.ipv4())));
            assertThat(gone).isLessThan(Duration.ofSeconds(3));
            assertThat(bfdDown(frr, victim)).isTrue();
            assertThat(frr.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
            assertThat(frr.staleNextHops(prefix(ip))).isEmpty();
            assertThat(BgpSandbox.curlsAnswered(router, ip, 5, CURL)).isEqualTo(5);

            network.thaw(victim);
            router.awaitFib(
                    prefix(ip),
                    r -> r.size() == 1 && r.getFirst().nextHops().size() == 3,
                    "back over 3 after the thaw",
                    SOON);
        } finally {
            peerWith(false, true);
        }
    }

    private static boolean bfdDown(FrrRouter frr, TestNode node) {
        return frr.bfdPeers().stream().anyMatch(b -> b.peer().equals(node.ipv4()) && !b.up());
    }

    /** FRR with graceful restart and BFD at 300 ms × 3 for the three nodes, every BFD session Up. */
    private static FrrRouter startFrrWithBfdAndGracefulRestart() {
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT))
                .toList();
        FrrRouter frr =
                router.startFrr(RouterConfig.of(ROUTER_AS, router.ipv4(), peers).withGracefulRestart(true));
        for (TestNode node : network.nodes()) {
            frr.awaitEstablished(node.ipv4(), SOON);
        }
        Sandbox.poll(
                "FRR's BFD sessions with the three nodes Up",
                SOON,
                () -> frr.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);
        return frr;
    }

    private static FrrRouter startFrrWithoutBfd(boolean gracefulRestart) {
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS))
                .toList();
        FrrRouter frr =
                router.startFrr(RouterConfig.of(ROUTER_AS, router.ipv4(), peers).withGracefulRestart(gracefulRestart));
        for (TestNode node : network.nodes()) {
            frr.awaitEstablished(node.ipv4(), SOON);
        }
        return frr;
    }

    private static BgpRouter startFrr() {
        List<RouterPeer> peers = network.nodes().stream()
                .flatMap(n -> java.util.stream.Stream.of(
                        RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT), RouterPeer.at(n.ipv6(), NODE_AS)))
                .toList();
        BgpRouter frr = router.start(RouterKind.FRR, RouterConfig.of(ROUTER_AS, router.ipv4(), peers));
        for (TestNode node : network.nodes()) {
            frr.awaitEstablished(node.ipv4(), SOON);
        }
        return frr;
    }

    private static InetAddress loadBalancer(String name, String trafficPolicy) {
        return loadBalancer(name, trafficPolicy, true);
    }

    private static InetAddress loadBalancer(String name, String trafficPolicy, boolean selector) {
        return loadBalancer(name, trafficPolicy, selector, "bgp", "IPv4");
    }

    private static InetAddress loadBalancer(
            String name, String trafficPolicy, boolean selector, String pool, String family) {
        return BgpSandbox.loadBalancer(cluster, name, trafficPolicy, selector, pool, family);
    }

    private static void delete(String version, String kind, String name) {
        cluster.client
                .genericKubernetesResources("metallb.io/" + version, kind)
                .inNamespace(Sandbox.NAMESPACE)
                .withName(name)
                .delete();
    }

    /** Edits the BGPPeer as {@code kubectl edit} would: the speakers restart their sessions with the new password. */
    private static void setPassword(String password) {
        editPeer(spec -> {
            if (password == null) {
                spec.remove("password");
            } else {
                spec.put("password", password);
            }
        });
    }

    /** The BGPPeer's {@code enableGracefulRestart} and its BFDProfile {@code fast} (which {@link #startCluster} sets). */
    private static void peerWith(boolean on, boolean bfd) {
        BgpSandbox.peerWith(cluster, "router", on, "fast", bfd);
    }

    private static void editPeer(java.util.function.Consumer<Map<String, Object>> change) {
        BgpSandbox.editPeer(cluster, "router", change);
    }

    private static List<InetAddress> nodeAddresses() {
        return network.nodes().stream().map(TestNode::ipv4).toList();
    }

    private static String range(int first, int last) {
        return text(network.ipv4PoolAddress(first)) + "-" + text(network.ipv4PoolAddress(last));
    }

    private static String prefix(InetAddress ip) {
        return text(ip) + "/32";
    }

    private static String text(InetAddress ip) {
        return ip.getHostAddress();
    }
}

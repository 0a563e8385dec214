package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.BfdTimers;
import io.lbk8s.testkit.net.BirdGracefulRestart;
import io.lbk8s.testkit.net.BirdRouter;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node failure in BGP mode with BIRD 2 as the upstream router, as {@link BgpIT} shows it with FRR: three nodes run
 * lbk8s speakers configured by MetalLB's BGPPeer and BFDProfile; BIRD's kernel protocol programs the router's FIB, and a
 * client behind the router curls the Service. A frozen node leaves through BFD; with graceful restart a killed speaker's
 * path stays (stale) until the speaker is back, without it the path leaves at once.
 */
class BgpBirdIT {
    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    static final Duration SOON = Duration.ofSeconds(30);
    static final Duration CURL = Duration.ofSeconds(2);
    static final String PEER = "router";
    static final String BFD_PROFILE = "fast";

    static Sandbox cluster;
    static TestNetwork network;
    static UpstreamRouter router;

    @BeforeAll
    static void startCluster() throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(Sandbox.REPO.resolve("lbk8s/target/e2e-logs/bgp-bird-" + System.currentTimeMillis()));
        network = cluster.network;
        router = network.router();
        cluster.createMetallb(
                "BFDProfile", BFD_PROFILE, "{receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3}");
        cluster.createMetallb(
                "BGPPeer",
                PEER,
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '"
                        + router.ipv4().getHostAddress() + "', bfdProfile: " + BFD_PROFILE + ", holdTime: 90s}");
        cluster.createMetallb(
                "IPAddressPool",
                "bgp",
                "{addresses: ['" + network.ipv4PoolAddress(40).getHostAddress() + "-"
                        + network.ipv4PoolAddress(49).getHostAddress() + "']}");
        cluster.createMetallb("BGPAdvertisement", "bgp", "{ipAddressPools: [bgp]}");
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
    void aFrozenNodesRouteLeavesBirdWithinAboutASecondThroughBfdAndComesBackAfterThaw() {
        BirdRouter bird = startBird(true, false);
        InetAddress ip = loadBalancer("frozen");
        router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
        TestNode victim = network.nodes().getFirst();
        Sandbox.poll(
                "BIRD's BFD sessions with the three nodes Up",
                SOON,
                () -> bird.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);

        long frozenAt = System.nanoTime();
        network.freeze(victim);
        router.awaitFib(
                prefix(ip),
                r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                "without the frozen node",
                Duration.ofSeconds(5));
        Duration gone = Duration.ofNanos(System.nanoTime() - frozenAt);
        System.out.println("BgpBirdIT: the frozen node's route left BIRD's FIB after " + gone.toMillis() + " ms; "
                + bird.bfdPeers());

        assertThat(gone).as("frozen node's route gone from the router's FIB").isLessThan(Duration.ofSeconds(3));
        assertThat(router.fibNextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bird.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bird.bfdPeers())
                .filteredOn(p -> p.peer().equals(victim.ipv4()))
                .noneMatch(RouterBfdPeer::up);
        assertThat(router.remoteClient().curl(ip, CURL)).isPresent();

        network.thaw(victim);
        router.awaitFib(prefix(ip), overThree(), "back over 3 after the thaw", SOON);
        assertThat(bird.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes again", SOON))
                .extracting(io.lbk8s.testkit.net.RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(nodeAddresses());
    }

    @Test
    void withGracefulRestartAKilledSpeakersPathStaysInBirdUntilItIsBack() throws Exception {
        BgpSandbox.peerWith(cluster, PEER, true, BFD_PROFILE, false);
        try {
            BirdRouter bird = startBird(false, true);
            InetAddress ip = loadBalancer("restarting");
            router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            // the router restarts (its routes gone with it): the same speakers send their table again
            bird.close();
            bird = startBird(false, true);
            router.awaitFib(prefix(ip), overThree(), "over 3 again", SOON);
            assertThat(bird.gracefulRestart(victim.ipv4()).flatMap(BirdGracefulRestart::restartState))
                    .as("Restart State in the OPEN of a speaker that has not restarted")
                    .contains(false);

            // what went over the wire, for when BIRD and the restarting speaker disagree
            io.lbk8s.testkit.net.NamespacedProcess capture =
                    router.capture(cluster.logs.resolve("graceful-restart.pcap"));
            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
                long killedAt = System.nanoTime();
                cluster.speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
                BirdRouter helper = bird;
                Sandbox.poll(
                        "BIRD to see the killed node's session down and keep its path as stale",
                        Duration.ofSeconds(5),
                        () -> helper.session(victim.ipv4())
                                        .map(s -> !s.established())
                                        .orElse(false)
                                && helper.staleNextHops(prefix(ip)).contains(victim.ipv4()));
                BirdGracefulRestart dead = helper.gracefulRestart(victim.ipv4()).orElseThrow();
                System.out.println("BgpBirdIT: BIRD while the speaker is dead: " + dead + "\n"
                        + helper.birdc("show", "protocols", "all", dead.protocol()) + "\n"
                        + helper.birdc("show", "route", prefix(ip), "all"));
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered while the speaker is dead")
                        .isEqualTo(10);
                assertThat(bird.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());

                cluster.startSpeaker(victim);
                cluster.awaitSpeakerReadyAndMarkPod(victim);
                bird.awaitEstablished(victim.ipv4(), SOON);
                Sandbox.poll(
                        "the restarted node's path fresh again (its End-of-RIB received)",
                        SOON,
                        () -> helper.staleNextHops(prefix(ip)).isEmpty()
                                && helper.nextHops(prefix(ip)).size() == 3);
                Duration outage = Duration.ofNanos(System.nanoTime() - killedAt);
                BirdGracefulRestart back = bird.gracefulRestart(victim.ipv4()).orElseThrow();
                System.out.println("BgpBirdIT: BIRD once the speaker is back: " + back + "\n"
                        + bird.birdc("show", "protocols", "all", back.protocol()));
                assertThat(back.restartState())
                        .as("Restart State of the first OPEN of the new speaker process")
                        .contains(true);
                assertThat(back.preservedFamilies())
                        .as("families whose forwarding the new speaker preserved (F bit)")
                        .contains("ipv4");
                assertThat(back.active()).isFalse();
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println("BgpBirdIT: speaker of " + victim.name() + " killed and back after "
                        + outage.toMillis() + " ms; BIRD's FIB sampled " + seen.samples()
                        + " times, the node's next hop missing in " + seen);
                seen.assertNeverMissing();
            } finally {
                capture.stop(Duration.ofSeconds(5));
            }
            assertThat(router.fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());
        } finally {
            BgpSandbox.peerWith(cluster, PEER, false, BFD_PROFILE, true);
        }
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersPathLeavesBirdAtOnce() {
        BgpSandbox.peerWith(cluster, PEER, false, BFD_PROFILE, false);
        try {
            BirdRouter bird = startBird(false, false);
            InetAddress ip = loadBalancer("not-restarting");
            router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            long killedAt = System.nanoTime();
            cluster.speaker(victim).kill();
            // neither BFD nor the 90 s hold time: BIRD drops the path when the kernel closes the connection
            router.awaitFib(
                    prefix(ip),
                    r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                    "without the killed node",
                    Duration.ofSeconds(5));
            Duration gone = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.println(
                    "BgpBirdIT: without graceful restart the killed speaker's next hop left BIRD's FIB after "
                            + gone.toMillis() + " ms");
            assertThat(gone).isLessThan(Duration.ofSeconds(3));
            assertThat(bird.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
            assertThat(bird.staleNextHops(prefix(ip))).isEmpty();
        } finally {
            BgpSandbox.peerWith(cluster, PEER, false, BFD_PROFILE, true);
        }
    }

    @Test
    void withGracefulRestartAndBfdAKilledSpeakersPathLeavesBirdWithBfdOnAndStaysWithBfdGraceful() throws Exception {
        BgpSandbox.peerWith(cluster, PEER, true, BFD_PROFILE, true);
        try {
            BirdRouter bird = startBird(true, true);
            InetAddress ip = loadBalancer("restarting-with-bfd");
            router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
            TestNode victim = network.nodes().get(2);
            awaitBfdUp(bird);

            // bfd on: BFD's verdict ends the session, graceful restart or not
            long killedAt = System.nanoTime();
            cluster.speaker(victim).kill();
            router.awaitFib(
                    prefix(ip),
                    r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                    "without the killed node (bfd on)",
                    Duration.ofSeconds(5));
            System.out.println("BgpBirdIT: graceful restart with bfd on: the killed speaker's next hop left the FIB "
                    + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms after the kill; "
                    + bird.bfdPeers());
            assertThat(bird.nextHops(prefix(ip))).doesNotContain(victim.ipv4());
            assertThat(bird.bfdPeers())
                    .filteredOn(p -> p.peer().equals(victim.ipv4()))
                    .noneMatch(RouterBfdPeer::up);
            cluster.startSpeaker(victim);
            cluster.awaitSpeakerReadyAndMarkPod(victim);
            bird.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes again", SOON);

            // bfd graceful: BFD's verdict starts a graceful restart instead
            bird.bfdGraceful();
            for (TestNode node : network.nodes()) {
                bird.awaitEstablished(node.ipv4(), SOON);
            }
            awaitBfdUp(bird);
            router.awaitFib(prefix(ip), overThree(), "over 3 after reconfiguring", SOON);
            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
                killedAt = System.nanoTime();
                cluster.speaker(victim).kill();
                Sandbox.poll(
                        "BIRD to see the killed node's BFD session down and keep its path as stale",
                        Duration.ofSeconds(5),
                        () -> bird.bfdPeers().stream().anyMatch(p -> p.peer().equals(victim.ipv4()) && !p.up())
                                && bird.staleNextHops(prefix(ip)).contains(victim.ipv4()));
                Thread.sleep(2_000); // well past BFD's 900 ms detection time: the path is still there
                System.out.println("BgpBirdIT: with bfd graceful while the speaker is dead: " + bird.bfdPeers() + "\n"
                        + bird.birdc("show", "route", prefix(ip), "all"));
                assertThat(bird.staleNextHops(prefix(ip))).containsExactly(victim.ipv4());
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered while the speaker and its BFD session are dead")
                        .isEqualTo(10);
                cluster.startSpeaker(victim);
                cluster.awaitSpeakerReadyAndMarkPod(victim);
                bird.awaitEstablished(victim.ipv4(), SOON);
                Sandbox.poll(
                        "the restarted node's path fresh again (its End-of-RIB received)",
                        SOON,
                        () -> bird.staleNextHops(prefix(ip)).isEmpty()
                                && bird.nextHops(prefix(ip)).size() == 3);
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println(
                        "BgpBirdIT: with bfd graceful, speaker of " + victim.name() + " killed and back after "
                                + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms; the FIB sampled "
                                + seen.samples() + " times, the node's next hop missing in " + seen);
                seen.assertNeverMissing();
            }
        } finally {
            BgpSandbox.peerWith(cluster, PEER, false, BFD_PROFILE, true);
        }
    }

    private static void awaitBfdUp(BirdRouter bird) {
        Sandbox.poll(
                "BIRD's BFD sessions with the three nodes Up",
                SOON,
                () -> bird.bfdPeers().stream().filter(RouterBfdPeer::up).count() == 3);
    }

    /** BIRD peering with the three nodes over IPv4, with {@code bfd on} (300 ms × 3) or graceful restart as asked. */
    private static BirdRouter startBird(boolean bfd, boolean gracefulRestart) {
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> bfd
                        ? RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT)
                        : RouterPeer.at(n.ipv4(), NODE_AS))
                .toList();
        BirdRouter bird = router.startBird(
                RouterConfig.of(ROUTER_AS, router.ipv4(), peers).withGracefulRestart(gracefulRestart));
        for (TestNode node : network.nodes()) {
            bird.awaitEstablished(node.ipv4(), SOON);
        }
        return bird;
    }

    private static InetAddress loadBalancer(String name) {
        return BgpSandbox.loadBalancer(cluster, name, "Cluster", true, "bgp", "IPv4");
    }

    private static java.util.function.Predicate<List<io.lbk8s.testkit.net.FibRoute>> overThree() {
        return r -> r.size() == 1 && r.getFirst().nextHops().size() == 3;
    }

    private static List<InetAddress> nodeAddresses() {
        return network.nodes().stream().map(TestNode::ipv4).toList();
    }

    private static String prefix(InetAddress ip) {
        return ip.getHostAddress() + "/32";
    }
}

package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.FibRoute;
import io.lbk8s.testkit.net.GobgpRouter;
import io.lbk8s.testkit.net.RouterConfig;
import io.lbk8s.testkit.net.RouterPeer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Graceful restart in BGP mode with GoBGP 3.10 as the upstream router, as {@link BgpIT} shows it with FRR and
 * {@link BgpBirdIT} with BIRD: three nodes run lbk8s speakers configured by MetalLB's BGPPeer; the test harness copies
 * GoBGP's table into the router's FIB (GoBGP programs none itself here), and a client behind the router curls the
 * Service. GoBGP has no BFD, so the BGPPeer has no BFDProfile.
 */
class BgpGobgpIT {
    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    static final Duration SOON = Duration.ofSeconds(30);
    static final Duration CURL = Duration.ofSeconds(2);
    static final String PEER = "router";

    static Sandbox cluster;
    static TestNetwork network;
    static UpstreamRouter router;

    @BeforeAll
    static void startCluster() throws Exception {
        E2ePrerequisites.check();
        cluster = Sandbox.start(Sandbox.REPO.resolve("lbk8s/target/e2e-logs/bgp-gobgp-" + System.currentTimeMillis()));
        network = cluster.network;
        router = network.router();
        cluster.createMetallb(
                "BGPPeer",
                PEER,
                "{myASN: " + NODE_AS + ", peerASN: " + ROUTER_AS + ", peerAddress: '"
                        + router.ipv4().getHostAddress() + "', holdTime: 90s}");
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
    void withGracefulRestartAKilledSpeakersPathStaysInGobgpUntilItIsBack() throws Exception {
        gracefulRestart(true);
        try {
            GobgpRouter gobgp = startGobgp(true);
            InetAddress ip = loadBalancer("restarting");
            router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
            TestNode victim = network.nodes().get(2);

            try (BgpSandbox.FibWatch fib = BgpSandbox.FibWatch.start(router, prefix(ip), victim.ipv4())) {
                long killedAt = System.nanoTime();
                cluster.speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
                Sandbox.poll(
                        "GoBGP to see the killed node's session down and keep its path as stale",
                        Duration.ofSeconds(5),
                        () -> gobgp.session(victim.ipv4())
                                        .map(s -> !s.established())
                                        .orElse(false)
                                && gobgp.staleNextHops(prefix(ip)).contains(victim.ipv4()));
                System.out.println("BgpGobgpIT: GoBGP while the speaker is dead:\n"
                        + gobgp.gobgp("neighbor", victim.ipv4().getHostAddress()) + "\n"
                        + gobgp.gobgp("global", "rib", "-a", "ipv4", prefix(ip), "-j"));
                assertThat(BgpSandbox.curlsAnswered(router, ip, 10, CURL))
                        .as("curls answered while the speaker is dead")
                        .isEqualTo(10);
                assertThat(gobgp.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());

                cluster.startSpeaker(victim);
                cluster.awaitSpeakerReadyAndMarkPod(victim);
                gobgp.awaitEstablished(victim.ipv4(), SOON);
                Sandbox.poll(
                        "the restarted node's path fresh again (its End-of-RIB received)",
                        SOON,
                        () -> gobgp.staleNextHops(prefix(ip)).isEmpty()
                                && gobgp.nextHops(prefix(ip)).size() == 3);
                Duration outage = Duration.ofNanos(System.nanoTime() - killedAt);
                System.out.println("BgpGobgpIT: GoBGP once the speaker is back:\n"
                        + gobgp.gobgp("neighbor", victim.ipv4().getHostAddress()));
                BgpSandbox.FibWatch.Seen seen = fib.stop();
                System.out.println("BgpGobgpIT: speaker of " + victim.name() + " killed and back after "
                        + outage.toMillis() + " ms; the router's FIB sampled " + seen.samples()
                        + " times, the node's next hop missing in " + seen);
                seen.assertNeverMissing();
            }
            assertThat(router.fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(nodeAddresses());
            assertThat(router.remoteClient().curl(ip, CURL)).isPresent();
        } finally {
            gracefulRestart(false);
        }
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersPathLeavesGobgpAtOnce() {
        GobgpRouter gobgp = startGobgp(false);
        InetAddress ip = loadBalancer("not-restarting");
        router.awaitFib(prefix(ip), overThree(), "over 3", SOON);
        TestNode victim = network.nodes().get(2);

        long killedAt = System.nanoTime();
        cluster.speaker(victim).kill();
        // not the 90 s hold time: GoBGP drops the path when the kernel closes the connection
        router.awaitFib(
                prefix(ip),
                r -> r.size() == 1 && !r.getFirst().nextHops().contains(victim.ipv4()),
                "without the killed node",
                Duration.ofSeconds(5));
        Duration gone = Duration.ofNanos(System.nanoTime() - killedAt);
        System.out.println("BgpGobgpIT: without graceful restart the killed speaker's next hop left the FIB after "
                + gone.toMillis() + " ms");
        assertThat(gone).isLessThan(Duration.ofSeconds(3));
        assertThat(gobgp.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(gobgp.staleNextHops(prefix(ip))).isEmpty();
        assertThat(router.remoteClient().curl(ip, CURL)).isPresent();
    }

    /** The BGPPeer's {@code enableGracefulRestart}; the speakers restart their sessions with it. */
    private static void gracefulRestart(boolean on) {
        BgpSandbox.peerWith(cluster, PEER, on, "none", false);
    }

    /** GoBGP peering with the three nodes over IPv4, with graceful restart (helper) as asked. */
    private static GobgpRouter startGobgp(boolean gracefulRestart) {
        List<RouterPeer> peers = network.nodes().stream()
                .map(n -> RouterPeer.at(n.ipv4(), NODE_AS))
                .toList();
        GobgpRouter gobgp = router.startGobgp(
                RouterConfig.of(ROUTER_AS, router.ipv4(), peers).withGracefulRestart(gracefulRestart));
        for (TestNode node : network.nodes()) {
            gobgp.awaitEstablished(node.ipv4(), SOON);
        }
        return gobgp;
    }

    private static InetAddress loadBalancer(String name) {
        return BgpSandbox.loadBalancer(cluster, name, "Cluster", true, "bgp", "IPv4");
    }

    private static Predicate<List<FibRoute>> overThree() {
        return r -> r.size() == 1 && r.getFirst().nextHops().size() == 3;
    }

    private static List<InetAddress> nodeAddresses() {
        return network.nodes().stream().map(TestNode::ipv4).toList();
    }

    private static String prefix(InetAddress ip) {
        return ip.getHostAddress() + "/32";
    }
}

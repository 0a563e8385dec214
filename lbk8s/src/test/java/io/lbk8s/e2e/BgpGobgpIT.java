package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.CURL;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static io.lbk8s.e2e.BgpSandbox.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.GobgpRouter;
import io.lbk8s.testkit.net.TestNode;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful restart in BGP mode with GoBGP 3.10 as the upstream router, as {@link BgpIT} shows it with FRR and
 * {@link BgpBirdIT} with BIRD: three nodes run lbk8s speakers configured by MetalLB's BGPPeer; the test harness copies
 * GoBGP's table into the router's FIB (GoBGP programs none itself here), and a client behind the router curls the
 * Service. GoBGP has no BFD, so the BGPPeer has no BFDProfile.
 */
class BgpGobgpIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withoutBfd("bgp-gobgp");

    @Test
    void withGracefulRestartAKilledSpeakersPathStaysInGobgpUntilItIsBack() throws Exception {
        bgp.peerWith(true, false);
        GobgpRouter gobgp = bgp.startGobgp(true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("restarting");
        TestNode victim = bgp.node(2);

        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            long killedAt = System.nanoTime();
            bgp.cluster().speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
            bgp.awaitSessionDownAndPathStale(gobgp, victim, ip);
            System.out.println("BgpGobgpIT: GoBGP while the speaker is dead:\n"
                    + gobgp.gobgp("neighbor", victim.ipv4().getHostAddress()) + "\n"
                    + gobgp.gobgp("global", "rib", "-a", "ipv4", prefix(ip), "-j"));
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered while the speaker is dead")
                    .isEqualTo(10);
            assertThat(gobgp.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());

            bgp.restartKilledSpeaker(victim, gobgp);
            bgp.awaitPathsFreshFromEveryNode(
                    gobgp, ip, "the restarted node's path fresh again (its End-of-RIB received)");
            Duration outage = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.println("BgpGobgpIT: GoBGP once the speaker is back:\n"
                    + gobgp.gobgp("neighbor", victim.ipv4().getHostAddress()));
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpGobgpIT: speaker of " + victim.name() + " killed and back after "
                    + outage.toMillis() + " ms; the router's FIB sampled " + seen.samples()
                    + " times, the node's next hop missing in " + seen);
            seen.assertNeverMissing();
        }
        assertThat(bgp.router().fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
        assertThat(bgp.router().remoteClient().curl(ip, CURL)).isPresent();
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersPathLeavesGobgpAtOnce() {
        GobgpRouter gobgp = bgp.startGobgp(false);
        InetAddress ip = bgp.loadBalancerOverEveryNode("not-restarting");
        TestNode victim = bgp.node(2);

        // not the 90 s hold time: GoBGP drops the path when the kernel closes the connection
        Duration gone = bgp.killSpeakerAndTimeFibDrop(victim, ip, "without the killed node");
        System.out.println("BgpGobgpIT: without graceful restart the killed speaker's next hop left the FIB after "
                + gone.toMillis() + " ms");
        assertThat(gone).isLessThan(Duration.ofSeconds(3));
        assertThat(gobgp.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(gobgp.staleNextHops(prefix(ip))).isEmpty();
        assertThat(bgp.router().remoteClient().curl(ip, CURL)).isPresent();
    }

    @Test
    void whenGobgpRestartsGracefullyTheSpeakersSendTheirRoutesAgain() {
        bgp.peerWith(true, false);
        GobgpRouter gobgp = bgp.startGobgp(true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("router-restarts");

        long restartedAt = System.nanoTime();
        gobgp.restartGracefully(); // SIGKILL, then gobgpd --graceful-restart: an empty table, Restart State set
        bgp.awaitEstablishedWithEveryNode(gobgp);
        gobgp.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes again", SOON);
        System.out.println("BgpGobgpIT: gobgpd restarted; the three paths back after "
                + Duration.ofNanos(System.nanoTime() - restartedAt).toMillis() + " ms:\n"
                + gobgp.gobgp("neighbor", bgp.node(0).ipv4().getHostAddress()));
        bgp.assertRoutedOverEveryNodeAndAnswered(gobgp, ip);
    }
}

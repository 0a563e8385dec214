package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.CURL;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static io.lbk8s.e2e.BgpSandbox.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.BirdGracefulRestart;
import io.lbk8s.testkit.net.BirdRouter;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterBfdPeer;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Node failure in BGP mode with BIRD 2 as the upstream router, as {@link BgpIT} shows it with FRR: three nodes run
 * lbk8s speakers configured by MetalLB's BGPPeer and BFDProfile; BIRD's kernel protocol programs the router's FIB, and a
 * client behind the router curls the Service. A frozen node leaves through BFD; with graceful restart a killed speaker's
 * path stays (stale) until the speaker is back, without it the path leaves at once.
 */
class BgpBirdIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withBfd("bgp-bird");

    @Test
    void aFrozenNodesRouteLeavesBirdWithinAboutASecondThroughBfdAndComesBackAfterThaw() {
        BirdRouter bird = bgp.startBird(true, false);
        InetAddress ip = bgp.loadBalancerOverEveryNode("frozen");
        TestNode victim = bgp.node(0);
        BgpSandbox.awaitBfdUp(bird);

        Duration gone = bgp.freezeAndTimeFibDrop(victim, ip, "without the frozen node");
        System.out.println("BgpBirdIT: the frozen node's route left BIRD's FIB after " + gone.toMillis() + " ms; "
                + bird.bfdPeers());

        assertThat(gone).as("frozen node's route gone from the router's FIB").isLessThan(Duration.ofSeconds(3));
        assertThat(bgp.router().fibNextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bird.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bird.bfdPeers())
                .filteredOn(p -> p.peer().equals(victim.ipv4()))
                .noneMatch(RouterBfdPeer::up);
        assertThat(bgp.router().remoteClient().curl(ip, CURL)).isPresent();

        bgp.network().thaw(victim);
        bgp.awaitFibOverEveryNode(ip, "back over 3 after the thaw");
        assertThat(bird.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes again", SOON))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
    }

    @Test
    void withGracefulRestartAKilledSpeakersPathStaysInBirdUntilItIsBack() throws Exception {
        bgp.peerWith(true, false);
        BirdRouter bird = bgp.startBird(false, true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("restarting");
        TestNode victim = bgp.node(2);

        // the router restarts (its routes gone with it): the same speakers send their table again
        bird.close();
        bird = bgp.startBird(false, true);
        bgp.awaitFibOverEveryNode(ip, "over 3 again");
        assertThat(bird.gracefulRestart(victim.ipv4()).flatMap(BirdGracefulRestart::restartState))
                .as("Restart State in the OPEN of a speaker that has not bird")
                .contains(false);

        // what went over the wire, for when BIRD and the restarting speaker disagree
        NamespacedProcess capture = bgp.router().capture(bgp.cluster().logs.resolve("graceful-restart.pcap"));
        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            long killedAt = System.nanoTime();
            bgp.cluster().speaker(victim).kill(); // SIGKILL: no Cease; the kernel closes the TCP connection
            bgp.awaitSessionDownAndPathStale(bird, victim, ip);
            BirdGracefulRestart dead = bird.gracefulRestart(victim.ipv4()).orElseThrow();
            System.out.println("BgpBirdIT: BIRD while the speaker is dead: " + dead + "\n"
                    + bird.birdc("show", "protocols", "all", dead.protocol()) + "\n"
                    + bird.birdc("show", "route", prefix(ip), "all"));
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered while the speaker is dead")
                    .isEqualTo(10);
            assertThat(bird.nextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());

            bgp.restartKilledSpeaker(victim, bird);
            bgp.awaitPathsFreshFromEveryNode(
                    bird, ip, "the restarted node's path fresh again (its End-of-RIB received)");
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
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpBirdIT: speaker of " + victim.name() + " killed and back after "
                    + outage.toMillis() + " ms; BIRD's FIB sampled " + seen.samples()
                    + " times, the node's next hop missing in " + seen);
            seen.assertNeverMissing();
        } finally {
            capture.stop(Duration.ofSeconds(5));
        }
        assertThat(bgp.router().fibNextHops(prefix(ip))).containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
    }

    @Test
    void withoutGracefulRestartAKilledSpeakersPathLeavesBirdAtOnce() {
        bgp.peerWith(false, false);
        BirdRouter bird = bgp.startBird(false, false);
        InetAddress ip = bgp.loadBalancerOverEveryNode("not-restarting");
        TestNode victim = bgp.node(2);

        // neither BFD nor the 90 s hold time: BIRD drops the path when the kernel closes the connection
        Duration gone = bgp.killSpeakerAndTimeFibDrop(victim, ip, "without the killed node");
        System.out.println("BgpBirdIT: without graceful restart the killed speaker's next hop left BIRD's FIB after "
                + gone.toMillis() + " ms");
        assertThat(gone).isLessThan(Duration.ofSeconds(3));
        assertThat(bird.nextHops(prefix(ip))).hasSize(2).doesNotContain(victim.ipv4());
        assertThat(bird.staleNextHops(prefix(ip))).isEmpty();
    }

    @Test
    void withGracefulRestartAndBfdAKilledSpeakersPathLeavesBirdWithBfdOnAndStaysWithBfdGraceful() throws Exception {
        bgp.peerWith(true, true);
        BirdRouter bird = bgp.startBird(true, true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("restarting-with-bfd");
        TestNode victim = bgp.node(2);
        BgpSandbox.awaitBfdUp(bird);

        // bfd on: BFD's verdict ends the session, graceful restart or not
        Duration gone = bgp.killSpeakerAndTimeFibDrop(victim, ip, "without the killed node (bfd on)");
        System.out.println("BgpBirdIT: graceful restart with bfd on: the killed speaker's next hop left the FIB "
                + gone.toMillis() + " ms after the kill; " + bird.bfdPeers());
        assertThat(bird.nextHops(prefix(ip))).doesNotContain(victim.ipv4());
        assertThat(bird.bfdPeers())
                .filteredOn(p -> p.peer().equals(victim.ipv4()))
                .noneMatch(RouterBfdPeer::up);
        bgp.cluster().startSpeaker(victim);
        bgp.cluster().awaitSpeakerReadyAndMarkPod(victim);
        bird.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes again", SOON);

        // bfd graceful: BFD's verdict starts a graceful restart instead
        bird.bfdGraceful();
        bgp.awaitEstablishedWithEveryNode(bird);
        BgpSandbox.awaitBfdUp(bird);
        bgp.awaitFibOverEveryNode(ip, "over 3 after reconfiguring");
        try (FibWatch fib = bgp.watchFib(ip, victim)) {
            long killedAt = System.nanoTime();
            bgp.cluster().speaker(victim).kill();
            bgp.awaitBfdDownAndPathStale(bird, victim, ip);
            Thread.sleep(2_000); // well past BFD's 900 ms detection time: the path is still there
            System.out.println("BgpBirdIT: with bfd graceful while the speaker is dead: " + bird.bfdPeers() + "\n"
                    + bird.birdc("show", "route", prefix(ip), "all"));
            assertThat(bird.staleNextHops(prefix(ip))).containsExactly(victim.ipv4());
            assertThat(bgp.curlsAnswered(ip, 10))
                    .as("curls answered while the speaker and its BFD session are dead")
                    .isEqualTo(10);
            bgp.restartKilledSpeaker(victim, bird);
            bgp.awaitPathsFreshFromEveryNode(
                    bird, ip, "the restarted node's path fresh again (its End-of-RIB received)");
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpBirdIT: with bfd graceful, speaker of " + victim.name() + " killed and back after "
                    + Duration.ofNanos(System.nanoTime() - killedAt).toMillis() + " ms; the FIB sampled "
                    + seen.samples() + " times, the node's next hop missing in " + seen);
            seen.assertNeverMissing();
        }
    }

    @Test
    void withGracefulRestartAndBfdAFrozenNodesPathLeavesBirdWithBfdOnAndStaysStaleWithBfdGraceful() throws Exception {
        bgp.peerWith(true, true);
        BirdRouter bird = bgp.startBird(true, true);
        BgpSandbox.awaitBfdUp(bird);
        // bfd on: BFD's verdict ends the session while it is Established, graceful restart or not
        InetAddress ip = bgp.assertFrozenNodeLeavesDespiteGracefulRestart(bird, "frozen-with-gr");

        // bfd graceful: BFD's verdict starts a graceful restart instead, which a frozen node does not finish
        bird.bfdGraceful();
        bgp.awaitEstablishedWithEveryNode(bird);
        BgpSandbox.awaitBfdUp(bird);
        bgp.awaitFibOverEveryNode(ip, "over 3 after reconfiguring");
        TestNode victim = bgp.node(0);
        long frozenAt = System.nanoTime();
        bgp.network().freeze(victim);
        bgp.awaitBfdDownAndPathStale(bird, victim, ip);
        long staleAfter = Duration.ofNanos(System.nanoTime() - frozenAt).toMillis();
        Thread.sleep(3_000); // well past BFD's 900 ms detection time
        System.out.println("BgpBirdIT: with bfd graceful, the frozen node's BFD session down and its path stale "
                + staleAfter + " ms after the freeze; 3 s later: " + bird.bfdPeers() + "\n"
                + bird.birdc("show", "route", prefix(ip), "all") + "\nFIB: "
                + bgp.router().fibNextHops(prefix(ip)));
        assertThat(bird.staleNextHops(prefix(ip)))
                .as("the frozen node's path, kept stale by BIRD's graceful restart")
                .containsExactly(victim.ipv4());
        assertThat(bgp.router().fibNextHops(prefix(ip)))
                .as("the FIB still forwards to the frozen node")
                .contains(victim.ipv4());

        bgp.network().thaw(victim);
        bgp.awaitPathsFreshFromEveryNode(bird, ip, "the thawed node's path fresh again (its End-of-RIB received)");
    }

    @Test
    void whenBirdRestartsGracefullyTheSpeakersSendTheirRoutesAndEndOfRibAgainAndTrafficFlowsThroughout()
            throws Exception {
        bgp.peerWith(true, false);
        BirdRouter bird = bgp.startBird(false, true);
        InetAddress ip = bgp.loadBalancerOverEveryNode("router-restarts");
        TestNode watched = bgp.node(0);

        try (FibWatch fib = bgp.watchFib(ip, watched)) {
            long restartedAt = System.nanoTime();
            // birdc graceful restart, then bird -R: its kernel routes stay, its OPENs say Restart State
            bird.restartGracefully();
            long startedAt = System.nanoTime();
            bgp.awaitEstablishedWithEveryNode(bird);
            // BIRD ends its recovery once every neighbour that offered graceful restart has sent End-of-RIB (or
            // after its wait time, 240 s, far beyond this wait)
            Sandbox.poll(
                    "BIRD's graceful restart recovery done (every speaker's End-of-RIB) and its paths back",
                    SOON,
                    () -> !bird.recoveringFromGracefulRestart()
                            && bird.nextHops(prefix(ip)).size() == 3);
            Duration back = Duration.ofNanos(System.nanoTime() - startedAt);
            String log = Files.readString(bird.logs().getFirst());
            System.out.println("BgpBirdIT: BIRD once the speakers are back: "
                    + bird.birdc("show", "status") + "\n"
                    + bird.birdc("show", "route", prefix(ip), "all") + "\n"
                    + log.lines().filter(l -> l.contains("raceful restart")).collect(Collectors.joining("\n")));
            FibWatch.Seen seen = fib.stop();
            System.out.println("BgpBirdIT: BIRD restarted gracefully; "
                    + bgp.network().nodes().size()
                    + " speakers' routes and End-of-RIB back " + back.toMillis() + " ms after bird -R started ("
                    + Duration.ofNanos(System.nanoTime() - restartedAt).toMillis() + " ms after the restart"
                    + " began); the FIB sampled " + seen.samples() + " times, " + watched.name()
                    + "'s next hop missing in " + seen);
            assertThat(log).as("BIRD's log").contains("Graceful restart done");
            seen.assertNeverMissing();
        }
        bgp.assertRoutedOverEveryNodeAndAnswered(bird, ip);
    }
}

package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.FAILOVER;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.FrrRouter;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A router that goes away without closing its connections: its LAN link down (a pulled cable, a power cut; FRR and
 * BIRD, with BFD) or its every process stopped (a hung router; FRR, BIRD and GoBGP, the hold timer alone). lbk8s
 * learns of it only from BFD or its hold timer; the speakers must say so (BGPSessionState, their log), keep trying, and
 * come back once the router is there again (by their own attempts, or by the router's connection to their listening
 * socket), with the route on it and the remote client's curl answered.
 */
class BgpRouterOutageIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withBfd("bgp-router-outage");

    /** The BGPPeer's connectTime in these tests: the longest wait between two attempts (1 s, 2 s, 4 s, 5 s...). */
    private static final String CONNECT_TIME = "5s";
    /** How long the router stays away once every speaker has noticed. */
    private static final Duration OUTAGE = Duration.ofSeconds(12);
    /** Why a speaker's log says its session went down, as the speaker words it. */
    private static final String BFD_DOWN = "went silent: BFD says it is down";

    private static final String HOLD_TIME = "sent no KEEPALIVE or UPDATE within the hold time";
    /**
     * How long the link stays down after every speaker saw its session down: each connects again 1 s later, sends its
     * SYN again 1, 3, 7, 15 and 31 s into that attempt, and one sent while the link is down waits up to 3 s for the
     * router's ARP answer; so the link comes back after the SYN of 15 s has given up and about 12 s before the next.
     */
    static final Duration LINK_DOWN_PAST_A_SYN = Duration.ofMillis(19_500);

    /** What a speaker logs when it takes a connection the router opened to its listening socket. */
    private static final String ROUTER_CONNECTED = "connected to this node (in state";

    @ParameterizedTest
    @EnumSource(
            value = RouterKind.class,
            names = {"FRR", "BIRD"})
    void aRouterWhoseLinkGoesDownIsSeenDownThroughBfdAndTheSessionsComeBackWithTheLink(RouterKind kind)
            throws Exception {
        bgp.editPeer(spec -> spec.put("connectTime", CONNECT_TIME));
        BgpRouter upstream = bgp.startRouter(kind, bgp.ipv4Peers(true), false);
        BgpSandbox.awaitBfdUp(upstream);
        InetAddress ip =
                bgp.loadBalancerOverEveryNode("unplugged-" + kind.name().toLowerCase(Locale.ROOT));
        bgp.awaitSessionStates(true, SOON);

        Map<TestNode, Long> bfdDownLogged = downLogged(BFD_DOWN);
        Map<TestNode, Double> transitions = transitions();
        long downAt = System.nanoTime();
        bgp.router().linkDown();
        // BFD at 300 ms x 3: the hold time (90 s) has no say
        bgp.awaitSessionStates(false, FAILOVER);
        Duration noticed = since(downAt);
        awaitEveryLogSays(BFD_DOWN, bfdDownLogged);

        Thread.sleep(OUTAGE);
        assertKeptTrying(transitions);
        assertNoSessionEstablished("while the router is unplugged");

        long upAt = System.nanoTime();
        bgp.router().linkUp();
        Duration back = awaitBack(upstream, ip);
        System.out.println("BgpRouterOutageIT: " + kind + "'s link down: every speaker saw its session down after "
                + noticed.toMillis() + " ms; link up after " + OUTAGE.toSeconds() + " s more: every session"
                + " Established, the route over 3 nodes and answered " + back.toMillis() + " ms after the link"
                + " came up");
        assertThat(noticed).as("the link down noticed through BFD").isLessThan(Duration.ofSeconds(3));
        assertThat(since(upAt))
                .as("back within the connectTime between two attempts, and a margin")
                .isLessThan(Duration.ofSeconds(20));
    }

    /**
     * With the BGPPeer's default connectTime (120 s) each speaker has an attempt under way when the link comes back.
     * The router (FRR connects at once when its neighbour becomes reachable again) connects to the speakers' listening
     * sockets, which take its connection in state CONNECT, and every session is back within seconds.
     */
    @ParameterizedTest
    @EnumSource(
            value = RouterKind.class,
            names = {"FRR"})
    void withTheDefaultConnectTimeTheRouterConnectsToTheSpeakersWhenItsLinkComesBack(RouterKind kind) throws Exception {
        BgpRouter upstream = bgp.startRouter(kind, bgp.ipv4Peers(true), false);
        BgpSandbox.awaitBfdUp(upstream);
        InetAddress ip =
                bgp.loadBalancerOverEveryNode("default-connect-" + kind.name().toLowerCase(Locale.ROOT));
        bgp.awaitSessionStates(true, SOON);

        Map<TestNode, Long> routerConnected = logged(ROUTER_CONNECTED);
        bgp.router().linkDown();
        bgp.awaitSessionStates(false, FAILOVER);
        Thread.sleep(LINK_DOWN_PAST_A_SYN);
        assertNoSessionEstablished("while the router is unplugged");

        long upAt = System.nanoTime();
        bgp.router().linkUp();
        Duration back = awaitBack(upstream, ip);
        System.out.println("BgpRouterOutageIT: " + kind + "'s link down " + LINK_DOWN_PAST_A_SYN.toMillis()
                + " ms after the speakers noticed, connectTime 120 s (the default): every"
                + " session Established, the route over 3 nodes and answered " + back.toMillis() + " ms after the"
                + " link came up");
        awaitEveryLogSaysOnceMore(ROUTER_CONNECTED, routerConnected);
        assertThat(since(upAt)).as("back within seconds").isLessThan(Duration.ofSeconds(8));
    }

    /**
     * FRR's bgpd gone for {@link #BGPD_GONE} (killed: the kernel closes its connections, so the speakers see it at
     * once) and started again: its first action is to connect to its neighbours, the speakers, whose listening sockets
     * take the connections; the speakers' own next attempt (1, 2, 4, 8, 16, 32 s after each refused one) would come
     * about 28 s later ({@link BgpConnectOnlyIT}).
     */
    @org.junit.jupiter.api.Test
    void frrsBgpdStartedAgainConnectsToTheSpeakersAndTheSessionsAreBackWithinSeconds() throws Exception {
        var before = new java.util.concurrent.atomic.AtomicReference<Map<TestNode, Long>>();
        Duration back = bgpdGoneAndBack(bgp, "bgpd-back", () -> before.set(logged(ROUTER_CONNECTED)));
        System.out.println("BgpRouterOutageIT: FRR's bgpd killed, started again " + BGPD_GONE.toSeconds() + " s later:"
                + " every session Established, the route over 3 nodes and answered " + back.toMillis() + " ms after"
                + " it started");
        awaitEveryLogSaysOnceMore(ROUTER_CONNECTED, before.get());
        assertThat(back).as("back within seconds of bgpd's start").isLessThan(Duration.ofSeconds(10));
    }

    /**
     * How long bgpd is gone: the speakers' attempts come 1, 3, 7, 15 and 31 s after their sessions went down, refused,
     * and the next 63 s after.
     */
    static final Duration BGPD_GONE = Duration.ofSeconds(35);

    /**
     * FRR without graceful restart or BFD, its bgpd killed once every session is Established, started again after
     * {@link #BGPD_GONE}; returns the time from its start until every session is Established again (as the router and
     * the BGPSessionStates say), the router has the route over three next hops and the remote client's curl is answered.
     */
    static Duration bgpdGoneAndBack(BgpSandbox bgp, String service, Runnable beforeKill) throws InterruptedException {
        bgp.peerWith(false, false);
        FrrRouter frr = bgp.startFrr(false, false);
        InetAddress ip = bgp.loadBalancerOverEveryNode(service);
        bgp.awaitSessionStates(true, SOON);
        beforeKill.run();
        frr.killBgpd();
        bgp.awaitSessionStates(false, FAILOVER);
        Thread.sleep(BGPD_GONE);
        long startedAt = System.nanoTime();
        frr.startBgpd();
        bgp.awaitEstablishedWithEveryNode(frr);
        bgp.awaitSessionStates(true, SOON);
        bgp.assertRoutedOverEveryNodeAndAnswered(frr, ip);
        return since(startedAt);
    }

    @ParameterizedTest
    @EnumSource(
            value = RouterKind.class,
            names = {"FRR", "BIRD", "GOBGP"})
    void aHungRouterIsSeenDownByTheHoldTimerAndTheSessionsComeBackWhenItRunsAgain(RouterKind kind) throws Exception {
        bgp.peerWith(false, false); // no BFD: only the hold timer can tell
        bgp.editPeer(spec -> {
            spec.put("holdTime", "9s");
            spec.put("connectTime", CONNECT_TIME);
        });
        BgpRouter upstream = bgp.startRouter(kind, bgp.ipv4Peers(false), false);
        InetAddress ip = bgp.loadBalancerOverEveryNode("hung-" + kind.name().toLowerCase(Locale.ROOT));
        bgp.awaitSessionStates(true, SOON);

        Map<TestNode, Long> holdTimeLogged = downLogged(HOLD_TIME);
        long frozenAt = System.nanoTime();
        bgp.router().freeze();
        // KEEPALIVEs every 3 s: the last one heard 0-3 s before the freeze, the hold time 9 s after it
        bgp.awaitSessionStates(false, Duration.ofSeconds(15));
        Duration noticed = since(frozenAt);
        awaitEveryLogSays(HOLD_TIME, holdTimeLogged);
        Thread.sleep(OUTAGE);
        assertNoSessionEstablished("while the router is hung");

        long thawedAt = System.nanoTime();
        bgp.router().thaw();
        Duration back = awaitBack(upstream, ip);
        System.out.println("BgpRouterOutageIT: " + kind + " hung: every speaker saw its session down after "
                + noticed.toMillis() + " ms (hold time 9 s); thawed after " + OUTAGE.toSeconds() + " s more: every"
                + " session Established, the route over 3 nodes and answered " + back.toMillis() + " ms after the"
                + " thaw");
        assertThat(noticed)
                .as("the hung router noticed by the hold timer, not before")
                .isBetween(Duration.ofSeconds(5), Duration.ofSeconds(12));
        assertThat(since(thawedAt)).isLessThan(Duration.ofSeconds(30));
    }

    /**
     * Waits until every node's session is Established again, as the router and the speakers' BGPSessionStates say,
     * the router has the route from every node in its table and its FIB, and the remote client's curl is answered;
     * returns how long that took.
     */
    private static Duration awaitBack(BgpRouter upstream, InetAddress ip) {
        long from = System.nanoTime();
        bgp.awaitEstablishedWithEveryNode(upstream);
        bgp.awaitSessionStates(true, SOON);
        bgp.assertRoutedOverEveryNodeAndAnswered(upstream, ip);
        return since(from);
    }

    /** Waits until every speaker's log has {@code text} in more lines than {@code before} counted. */
    private static void awaitEveryLogSaysOnceMore(String text, Map<TestNode, Long> before) {
        Sandbox.poll(
                "every speaker's log: " + text,
                FAILOVER,
                () -> logged(text).entrySet().stream().allMatch(e -> e.getValue() > before.get(e.getKey())));
    }

    /** How many lines of each speaker's log contain {@code text}. */
    private static Map<TestNode, Long> logged(String text) {
        Map<TestNode, Long> counts = new HashMap<>();
        for (TestNode node : bgp.network().nodes()) {
            counts.put(
                    node,
                    bgp.cluster()
                            .speaker(node)
                            .log()
                            .lines()
                            .filter(l -> l.contains(text))
                            .count());
        }
        return counts;
    }

    /** How many times each speaker has logged that its session went down for {@code reason}. */
    private static Map<TestNode, Long> downLogged(String reason) {
        Map<TestNode, Long> counts = new HashMap<>();
        for (TestNode node : bgp.network().nodes()) {
            counts.put(
                    node,
                    bgp.cluster()
                            .speaker(node)
                            .log()
                            .lines()
                            .filter(l -> l.contains("is down: ") && l.contains(reason))
                            .count());
        }
        return counts;
    }

    /** Waits until every speaker has logged once more than {@code before} that its session went down for {@code reason}. */
    private static void awaitEveryLogSays(String reason, Map<TestNode, Long> before) {
        Sandbox.poll(
                "every speaker's log: its session with the router is down: ..." + reason,
                FAILOVER,
                () -> downLogged(reason).entrySet().stream().allMatch(e -> e.getValue() > before.get(e.getKey())));
    }

    private static Map<TestNode, Double> transitions() {
        Map<TestNode, Double> counts = new HashMap<>();
        bgp.network().nodes().forEach(n -> counts.put(n, bgp.sessionTransitions(n)));
        return counts;
    }

    /**
     * Each speaker's session changed state at least 4 times since {@code before}, taken while it was Established: down,
     * connecting, a connectTime without an answer, connecting again (1 s, then 2 s after a failure).
     */
    private static void assertKeptTrying(Map<TestNode, Double> before) {
        Map<TestNode, Double> after = transitions();
        for (TestNode node : bgp.network().nodes()) {
            System.out.println("BgpRouterOutageIT: " + node.name() + "'s session transitions while the router was"
                    + " away: " + (after.get(node) - before.get(node)));
            assertThat(after.get(node) - before.get(node))
                    .as(node.name() + "'s session transitions since the router went (down, then connect attempts)")
                    .isGreaterThanOrEqualTo(4);
        }
    }

    private static void assertNoSessionEstablished(String when) {
        assertThat(bgp.network().nodes())
                .as("nodes whose BGPSessionState says Established " + when)
                .noneMatch(n -> bgp.sessionState(n).equals(Optional.of("Established")));
    }

    private static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }
}

package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an end-to-end test sees of the upstream router, whichever implementation plays it: sessions, routes in its RIB
 * and FIB, ECMP, withdrawal, traffic from the remote client, misconfigured peers. The nodes' side is another real
 * implementation ({@link #speakerKind()}), announcing with its own CLI. One network per subclass; each test starts
 * and stops its own router and speakers.
 */
abstract class UpstreamRouterContract {

    static final long ROUTER_AS = 64500;
    static final long NODE_AS = 64512;
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);
    static final Duration ROUTE_TIMEOUT = Duration.ofSeconds(10);
    static final Duration CURL_TIMEOUT = Duration.ofSeconds(2);

    static TestNetwork network;
    static UpstreamRouter router;

    /** The implementation playing the router. */
    abstract RouterKind routerKind();

    /** The implementation playing the nodes' speakers: another one, so two implementations meet. */
    abstract RouterKind speakerKind();

    /** What the router's last error says when a peer's OPEN carries another AS than configured. */
    abstract String badPeerAsWords();

    /** Logs (the routers' configs and daemons' output too) stay in target/, for when a test fails. */
    static void createNetwork(Class<?> test) throws IOException {
        if (NetworkTests.networkCanBeBuilt()) {
            network = TestNetwork.create(2, java.nio.file.Path.of("target", "router-logs", test.getSimpleName()));
            router = network.router();
        }
    }

    @AfterAll
    static void closeNetwork() {
        if (network != null) {
            network.close();
            network = null;
        }
    }

    @BeforeEach
    void prerequisites() {
        NetworkTests.assumeNetworkCanBeBuilt();
        NetworkTests.assumeRouter(routerKind());
        NetworkTests.assumeRouter(speakerKind());
    }

    @AfterEach
    void stopRouters() {
        router.running().ifPresent(BgpRouter::close);
        speakers.forEach(BgpRouter::close);
        speakers.clear();
    }

    private final List<BgpRouter> speakers = new java.util.ArrayList<>();

    @Test
    void anAnnouncedAddressReachesTheRibAndFibAndTheRemoteClientReachesTheNode() {
        BgpRouter upstream = router.start(routerKind(), routerConfig(List.of(1, 2)));
        BgpRouter node1 = speaker(1, NODE_AS, Optional.empty());
        upstream.awaitEstablished(node(1).ipv4(), SESSION_TIMEOUT);
        String vip = host(network.ipv4PoolAddress(0));

        announce(node1, vip);

        List<RibPath> paths = upstream.awaitRoutes(vip, p -> p.size() == 1, "one path", ROUTE_TIMEOUT);
        assertThat(paths.getFirst().nextHop()).isEqualTo(node(1).ipv4());
        assertThat(router.awaitFib(vip, r -> !r.isEmpty(), "installed", ROUTE_TIMEOUT))
                .singleElement()
                .satisfies(r -> assertThat(r.nextHops()).containsExactly(node(1).ipv4()));
        assertThat(router.remoteClient().curl(network.ipv4PoolAddress(0), CURL_TIMEOUT))
                .as("curl from the remote client through the router")
                .contains("node-1\n");
    }

    @Test
    void twoNodesAnnouncingOneAddressGiveTwoNextHopsUntilTheyWithdraw() {
        BgpRouter upstream = router.start(routerKind(), routerConfig(List.of(1, 2)));
        BgpRouter node1 = speaker(1, NODE_AS, Optional.empty());
        BgpRouter node2 = speaker(2, NODE_AS, Optional.empty());
        upstream.awaitEstablished(node(1).ipv4(), SESSION_TIMEOUT);
        upstream.awaitEstablished(node(2).ipv4(), SESSION_TIMEOUT);
        InetAddress address = network.ipv4PoolAddress(1);
        String vip = host(address);

        announce(node1, vip);
        announce(node2, vip);

        assertThat(upstream.awaitRoutes(vip, p -> p.size() == 2, "two paths", ROUTE_TIMEOUT))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrder(node(1).ipv4(), node(2).ipv4());
        router.awaitFib(vip, r -> r.size() == 1 && r.getFirst().nextHops().size() == 2, "over two", ROUTE_TIMEOUT);
        assertThat(router.fibNextHops(vip)).containsExactlyInAnyOrder(node(1).ipv4(), node(2).ipv4());
        assertThat(answeringNodes(address))
                .as("nodes answering the remote client")
                .containsExactlyInAnyOrder("node-1\n", "node-2\n");

        withdraw(node2, vip);
        router.awaitFib(vip, r -> r.size() == 1 && r.getFirst().nextHops().size() == 1, "over one", ROUTE_TIMEOUT);
        assertThat(router.fibNextHops(vip)).containsExactly(node(1).ipv4());
        assertThat(upstream.routes(vip)).extracting(RibPath::nextHop).containsExactly(node(1).ipv4());

        withdraw(node1, vip);
        router.awaitFib(vip, List::isEmpty, "gone", ROUTE_TIMEOUT);
        assertThat(upstream.awaitRoutes(vip, List::isEmpty, "gone", ROUTE_TIMEOUT))
                .isEmpty();
        assertThat(router.remoteClient().curl(address, Duration.ofMillis(500))).isEmpty();
    }

    @Test
    void anIpv6AddressAnnouncedOverAnIpv6SessionReachesTheRemoteClient() {
        RouterConfig config =
                RouterConfig.of(ROUTER_AS, router.ipv4(), List.of(RouterPeer.at(node(2).ipv6(), NODE_AS)));
        BgpRouter upstream = router.start(routerKind(), config);
        RouterConfig speakerConfig = new RouterConfig(
                NODE_AS, node(2).ipv4(), List.of(RouterPeer.at(router.ipv6(), ROUTER_AS)), false, false);
        BgpRouter node2 = network.startSpeaker(node(2), speakerKind(), speakerConfig);
        speakers.add(node2);
        upstream.awaitEstablished(node(2).ipv6(), SESSION_TIMEOUT);
        InetAddress address = network.ipv6PoolAddress(0);
        String vip = host(address);

        announce(node2, vip);

        assertThat(upstream.awaitRoutes(vip, p -> p.size() == 1, "one path", ROUTE_TIMEOUT))
                .extracting(RibPath::nextHop)
                .containsExactly(node(2).ipv6());
        router.awaitFib(vip, r -> !r.isEmpty(), "installed", ROUTE_TIMEOUT);
        assertThat(router.fibNextHops(vip)).containsExactly(node(2).ipv6());
        assertThat(router.remoteClient().curl(address, CURL_TIMEOUT)).contains("node-2\n");
    }

    @Test
    void communitiesAndLocalPrefOfAnIbgpPathAreShown() {
        RouterConfig config =
                RouterConfig.of(ROUTER_AS, router.ipv4(), List.of(RouterPeer.at(node(1).ipv4(), ROUTER_AS)));
        BgpRouter upstream = router.start(routerKind(), config);
        BgpRouter node1 = speaker(1, ROUTER_AS, Optional.empty());
        upstream.awaitEstablished(node(1).ipv4(), SESSION_TIMEOUT);
        String vip = host(network.ipv4PoolAddress(2));

        announce(node1, vip, List.of("64500:100", "65000:7"), OptionalLong.of(150));

        RibPath path = upstream.awaitRoutes(vip, p -> p.size() == 1, "one path", ROUTE_TIMEOUT)
                .getFirst();
        assertThat(path.communities()).containsExactlyInAnyOrder("64500:100", "65000:7");
        assertThat(path.localPref()).hasValue(150);
        assertThat(path.nextHop()).isEqualTo(node(1).ipv4());
    }

    @Test
    void aSpeakerFromADynamicRangeIsAccepted() {
        RouterConfig config =
                RouterConfig.of(ROUTER_AS, router.ipv4(), List.of(RouterPeer.range(network.ipv4Subnet(), NODE_AS)));
        BgpRouter upstream = router.start(routerKind(), config);
        speaker(2, NODE_AS, Optional.empty());

        RouterSession session = upstream.awaitEstablished(node(2).ipv4(), SESSION_TIMEOUT);

        assertThat(session.state()).isEqualTo("Established");
    }

    @Test
    void aWrongPasswordKeepsTheSessionDown() {
        RouterConfig config = RouterConfig.of(
                ROUTER_AS,
                router.ipv4(),
                List.of(RouterPeer.at(node(1).ipv4(), NODE_AS).withPassword("right-one")));
        BgpRouter upstream = router.start(routerKind(), config);
        speaker(1, NODE_AS, Optional.of("wrong-one"));

        // TCP MD5 drops the segments silently: nothing to wait for but time
        Leftovers.sleep(Duration.ofSeconds(6));

        RouterSession session = upstream.session(node(1).ipv4()).orElseThrow();
        assertThat(session.established()).isFalse();
        assertThat(session.state()).isNotEqualTo("Established");
    }

    @Test
    void theRightPasswordEstablishesTheSession() {
        RouterConfig config = RouterConfig.of(
                ROUTER_AS,
                router.ipv4(),
                List.of(RouterPeer.at(node(1).ipv4(), NODE_AS).withPassword("right-one")));
        BgpRouter upstream = router.start(routerKind(), config);
        speaker(1, NODE_AS, Optional.of("right-one"));

        assertThat(upstream.awaitEstablished(node(1).ipv4(), SESSION_TIMEOUT).established())
                .isTrue();
    }

    @Test
    void aPeerWithAnotherAsThanConfiguredStaysDownAndTheRouterSaysWhy() {
        // the router expects AS 64513 of node-1, which speaks as 64512
        RouterConfig config =
                RouterConfig.of(ROUTER_AS, router.ipv4(), List.of(RouterPeer.at(node(1).ipv4(), NODE_AS + 1)));
        BgpRouter upstream = router.start(routerKind(), config);
        speaker(1, NODE_AS, Optional.empty());

        RouterSession session = Poll.until(
                        "a last error on the session with node-1",
                        () -> upstream.session(node(1).ipv4()),
                        s -> s.map(x -> !x.lastError().isEmpty()).orElse(false),
                        SESSION_TIMEOUT)
                .orElseThrow();

        assertThat(session.established()).isFalse();
        assertThat(session.lastError()).containsIgnoringCase(badPeerAsWords());
    }

    RouterConfig routerConfig(List<Integer> nodes) {
        return RouterConfig.of(
                ROUTER_AS,
                router.ipv4(),
                nodes.stream().map(n -> RouterPeer.at(node(n).ipv4(), NODE_AS)).toList());
    }

    /** A speaker on node {@code n} peering with the router as {@code asn}. */
    BgpRouter speaker(int n, long asn, Optional<String> password) {
        RouterPeer upstream = RouterPeer.at(router.ipv4(), ROUTER_AS);
        RouterPeer peer = password.map(upstream::withPassword).orElse(upstream);
        BgpRouter speaker = network.startSpeaker(
                node(n), speakerKind(), new RouterConfig(asn, node(n).ipv4(), List.of(peer), false, false));
        speakers.add(speaker);
        return speaker;
    }

    static void announce(BgpRouter speaker, String prefix) {
        announce(speaker, prefix, List.of(), OptionalLong.empty());
    }

    static void announce(BgpRouter speaker, String prefix, List<String> communities, OptionalLong localPref) {
        switch (speaker) {
            case GobgpRouter gobgp -> gobgp.announce(prefix, communities, localPref);
            case BirdRouter bird -> bird.announce(prefix, communities, localPref);
            default -> throw new IllegalArgumentException(speaker + " cannot announce");
        }
    }

    static void withdraw(BgpRouter speaker, String prefix) {
        switch (speaker) {
            case GobgpRouter gobgp -> gobgp.withdraw(prefix);
            case BirdRouter bird -> bird.withdraw(prefix);
            default -> throw new IllegalArgumentException(speaker + " cannot withdraw");
        }
    }

    /** Which nodes answer 20 connections from the remote client: with ECMP and a port-aware hash, more than one. */
    static Set<String> answeringNodes(InetAddress address) {
        Set<String> bodies = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            router.remoteClient().curl(address, CURL_TIMEOUT).ifPresent(bodies::add);
        }
        return bodies;
    }

    static TestNode node(int n) {
        return network.node(n);
    }

    static String host(InetAddress address) {
        return Addressing.text(address) + (address instanceof java.net.Inet6Address ? "/128" : "/32");
    }
}

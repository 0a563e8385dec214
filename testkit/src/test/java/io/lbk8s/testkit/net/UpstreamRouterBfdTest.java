package io.lbk8s.testkit.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * BFD between the upstream router (FRR or BIRD; GoBGP has none) and BIRD speakers on the nodes: the sessions come up,
 * and a frozen node's route leaves the router's FIB in about a second, long before the 90 s hold time.
 */
class UpstreamRouterBfdTest {

    private static final long ROUTER_AS = 64500;
    private static final long NODE_AS = 64512;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);

    /** 300 ms × 3 is 0.9 s; the rest is room for a shared, busy machine. */
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(3);

    private static TestNetwork network;
    private static UpstreamRouter router;
    private final List<BgpRouter> started = new ArrayList<>();

    @BeforeAll
    static void create() throws IOException {
        if (NetworkTests.networkCanBeBuilt()) {
            network = TestNetwork.create(2, Path.of("target", "router-logs", "UpstreamRouterBfdTest"));
            router = network.router();
        }
    }

    @AfterAll
    static void close() {
        if (network != null) {
            network.close();
        }
    }

    @AfterEach
    void stop() {
        network.nodes().forEach(network::thaw);
        started.forEach(BgpRouter::close);
        started.clear();
    }

    @ParameterizedTest
    @EnumSource(
            value = RouterKind.class,
            names = {"FRR", "BIRD"})
    void aFrozenNodesRouteLeavesWithinAboutASecond(RouterKind kind) {
        NetworkTests.assumeNetworkCanBeBuilt();
        NetworkTests.assumeRouter(kind);
        NetworkTests.assumeRouter(RouterKind.BIRD);
        RouterConfig config = RouterConfig.of(
                ROUTER_AS,
                router.ipv4(),
                network.nodes().stream()
                        .map(n -> RouterPeer.at(n.ipv4(), NODE_AS).withBfd(BfdTimers.DEFAULT))
                        .toList());
        BgpRouter upstream = router.start(kind, config);
        started.add(upstream);
        String vip = Addressing.text(network.ipv4PoolAddress(10)) + "/32";
        for (TestNode node : network.nodes()) {
            RouterPeer peer = RouterPeer.at(router.ipv4(), ROUTER_AS).withBfd(BfdTimers.DEFAULT);
            BirdRouter speaker = (BirdRouter) network.startSpeaker(
                    node, RouterKind.BIRD, new RouterConfig(NODE_AS, node.ipv4(), List.of(peer), false, false));
            started.add(speaker);
            upstream.awaitEstablished(node.ipv4(), SESSION_TIMEOUT);
            speaker.announce(vip);
        }
        router.awaitFib(vip, r -> r.size() == 1 && r.getFirst().nextHops().size() == 2, "over two", SESSION_TIMEOUT);
        List<RouterBfdPeer> peers = Poll.until(
                "BFD up with both nodes",
                upstream::bfdPeers,
                p -> p.size() == 2 && p.stream().allMatch(RouterBfdPeer::up),
                SESSION_TIMEOUT);
        assertThat(peers)
                .extracting(RouterBfdPeer::peer)
                .containsExactlyInAnyOrder(
                        network.node(1).ipv4(), network.node(2).ipv4());

        long frozenAt = System.nanoTime();
        network.freeze(network.node(2));
        router.awaitFib(vip, r -> r.size() == 1 && r.getFirst().nextHops().size() == 1, "over one", FAILOVER_BOUND);
        Duration failover = Duration.ofNanos(System.nanoTime() - frozenAt);
        System.out.printf("%s: node-2 frozen, its next hop gone from the FIB after %d ms%n", kind, failover.toMillis());

        assertThat(router.fibNextHops(vip)).containsExactly(network.node(1).ipv4());
        assertThat(upstream.bfdPeers())
                .filteredOn(p -> p.peer().equals(network.node(2).ipv4()))
                .allSatisfy(p -> assertThat(p.up()).isFalse());
        assertThat(upstream.session(network.node(2).ipv4()).orElseThrow().established())
                .isFalse();
    }
}

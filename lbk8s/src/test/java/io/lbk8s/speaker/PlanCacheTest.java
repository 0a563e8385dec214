package io.lbk8s.speaker;

import static io.lbk8s.speaker.LeaderChoiceTest.EVERYWHERE;
import static io.lbk8s.speaker.LeaderChoiceTest.POOL;
import static io.lbk8s.speaker.LeaderChoiceTest.config;
import static io.lbk8s.speaker.LeaderChoiceTest.ip;
import static io.lbk8s.speaker.LeaderChoiceTest.l2;
import static io.lbk8s.speaker.LeaderChoiceTest.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.config.Config;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.peers.Liveness;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A plan that reuses what it decided before for unchanged Services equals the plan computed from scratch, on every
 * node of a three-node cluster, after each change of a sequence.
 */
class PlanCacheTest {
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    private static final List<LinkInfo> LINKS = NodePlanTest.LINKS;
    private static final Config BOTH = BgpFixtures.withBgp(
            config(POOL, EVERYWHERE), List.of(BgpPlanTest.TOR), List.of(BgpPlanTest.ALL), List.of());
    private static final Config AGGREGATED = BgpFixtures.withBgp(
            config(POOL, EVERYWHERE),
            List.of(BgpPlanTest.TOR, BgpPlanTest.TOR_V6),
            List.of(BgpPlanTest.ALL.aggregate(24, 64)),
            List.of());
    private static final Config SMALLER_POOL =
            BgpFixtures.withBgp(config("""
                    apiVersion: metallb.io/v1beta1
                    kind: IPAddressPool
                    metadata: {name: lan, namespace: metallb-system}
                    spec: {addresses: [10.0.0.0/25]}
                    """, EVERYWHERE), List.of(BgpPlanTest.TOR), List.of(BgpPlanTest.ALL), List.of());
    private static final Config ZONE_A_ONLY = BgpFixtures.withBgp(
            config(POOL, l2("zone-a", "{nodeSelectors: [{matchLabels: {zone: a}}]}")),
            List.of(BgpPlanTest.TOR),
            List.of(BgpPlanTest.ALL.nodes("zone=a")),
            List.of());

    private static final Config ZONE_B_PREFERRED = BgpFixtures.withBgp(
            config(
                    POOL,
                    l2("preferred", "{preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {zone: b}}}]}")),
            List.of(BgpPlanTest.TOR),
            List.of(BgpPlanTest.ALL),
            List.of());

    /** What the plans read: the configuration, the Services in the informer's order, the nodes, the interfaces. */
    private record World(
            Config config, Map<String, ServiceState> services, List<NodeState> nodes, List<LinkInfo> links) {
        World {
            services = new LinkedHashMap<>(services);
        }

        NodePlan.Inputs inputs(String me) {
            return new NodePlan.Inputs(
                    me,
                    config,
                    List.copyOf(services.values()),
                    nodes,
                    LeaderChoice.Options.DEFAULT,
                    links,
                    InterfaceChoice.DEFAULT_EXCLUDED);
        }
    }

    /** One change, named for the table. */
    private record Step(String name, UnaryOperator<World> change) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> sequences() {
        return Stream.of(
                arguments(
                        "Services added, updated and deleted",
                        BOTH,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.2"),
                                add("c", "10.0.0.3", "fd00::3"),
                                add("a", "10.0.0.4"),
                                delete("b"),
                                add("d", "10.0.0.4"),
                                delete("a"),
                                add("b", "10.0.0.2"))),
                arguments(
                        "endpoints change: Local Services follow their endpoints, and none left is reported",
                        BOTH,
                        List.of(
                                local("a", "10.0.0.1", "node-2"),
                                local("b", "10.0.0.2"),
                                add("c", "10.0.0.3"),
                                local("a", "10.0.0.1", "node-1", "node-3"),
                                local("b", "10.0.0.2", "node-2"),
                                local("a", "10.0.0.1"),
                                unserved("c", "10.0.0.3"),
                                add("c", "10.0.0.3"))),
                arguments(
                        "a node fails and returns, and the detector judges one",
                        BOTH,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.2"),
                                add("c", "10.0.0.3"),
                                fail("node-3"),
                                add("d", "10.0.0.4"),
                                back("node-3"),
                                judge("node-2", Liveness.DEAD),
                                add("e", "10.0.0.5"),
                                judge("node-2", Liveness.ALIVE))),
                arguments(
                        "nodes join and leave, so the hash orders kept are of other nodes",
                        BOTH,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.2", "fd00::2"),
                                add("c", "10.0.0.3"),
                                add("d", "10.0.0.4"),
                                join("node-4"),
                                leave("node-2"),
                                add("e", "10.0.0.5"),
                                fail("node-3"),
                                join("node-2"),
                                back("node-3"),
                                leave("node-4"))),
                arguments(
                        "preferred nodes, their labels changing while the hash orders are kept",
                        ZONE_B_PREFERRED,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.2"),
                                add("c", "10.0.0.3"),
                                labelled("node-2", "zone=b"),
                                labelled("node-3", "zone=b"),
                                fail("node-2"),
                                labelled("node-2", "zone=c"),
                                configure(BOTH),
                                configure(ZONE_B_PREFERRED))),
                arguments(
                        "the pools and advertisements change",
                        BOTH,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.200"),
                                add("c", "fd00::3"),
                                configure(SMALLER_POOL),
                                add("d", "10.0.0.201"),
                                configure(ZONE_A_ONLY),
                                labelled("node-2", "zone=a"),
                                configure(AGGREGATED),
                                add("e", "10.0.0.7"),
                                configure(BOTH))),
                arguments(
                        "Services that share an address, and routes aggregated over several Services",
                        AGGREGATED,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "10.0.0.1"),
                                add("c", "10.0.0.2", "fd00::2"),
                                add("d", "10.0.0.3"),
                                delete("a"),
                                add("b", "10.0.0.9"),
                                delete("c"))),
                arguments(
                        "the interfaces change: an address no interface holds is a problem",
                        BOTH,
                        List.of(
                                add("a", "10.0.0.1"),
                                add("b", "fd00::2"),
                                links(List.of(InterfaceChoiceTest.link("eth0 10.0.0.5/24"))),
                                add("c", "fd00::3"),
                                links(LINKS))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sequences")
    void afterEachChangeTheCachedPlanEqualsThePlanFromScratch(String name, Config config, List<Step> steps) {
        Map<String, PlanCache> caches = new LinkedHashMap<>();
        NODES.forEach(n -> caches.put(n, new PlanCache()));
        World world = new World(config, Map.of(), LeaderChoiceTest.THREE, LINKS);
        List<String> announcedSomewhere = new ArrayList<>();
        for (Step step : steps) {
            world = step.change().apply(world);
            for (String me : NODES) {
                NodePlan.Inputs in = world.inputs(me);
                NodePlan cached = caches.get(me).nodePlan(in);
                BgpPlan cachedBgp = caches.get(me).bgpPlan(in, Map.of(), Map.of());
                assertThat(cached).as("%s, after %s", me, step).isEqualTo(NodePlan.compute(in));
                assertThat(cachedBgp).as("%s, after %s", me, step).isEqualTo(BgpPlan.compute(in, Map.of(), Map.of()));
                cached.announced().keySet().forEach(ip -> announcedSomewhere.add(ip.toString()));
            }
        }
        assertThat(announcedSomewhere).as("the sequence announces something").isNotEmpty();
    }

    @Test
    void oneServiceChangedIsTheOnlyOneDecidedAgain() {
        PlanCache cache = new PlanCache();
        World world = new World(BOTH, Map.of(), LeaderChoiceTest.THREE, LINKS);
        for (int i = 1; i <= 50; i++) {
            world = add("s" + i, "10.0.0." + i).change().apply(world);
        }
        plan(cache, world);
        assertThat(cache.recomputed())
                .as("the first plan decides every Service, for layer 2 and BGP")
                .isEqualTo(100);

        plan(cache, add("new", "10.0.0.60").change().apply(world));
        assertThat(cache.recomputed()).as("one Service created").isEqualTo(2);

        World failed = fail("node-2").change().apply(world);
        plan(cache, failed);
        assertThat(cache.recomputed())
                .as("a node failed: every Service decided anew")
                .isEqualTo(100);

        plan(cache, failed);
        assertThat(cache.recomputed()).as("nothing changed").isZero();
    }

    @Test
    void theHashOrdersKeptAreOnlyThoseOfTheServicesPlanned() {
        PlanCache cache = new PlanCache();
        World world = new World(BOTH, Map.of(), LeaderChoiceTest.THREE, LINKS);
        for (int i = 1; i <= 20; i++) {
            world = add("s" + i, "10.0.0." + i).change().apply(world);
        }
        plan(cache, world);
        assertThat(cache.hashOrdersKept()).isEqualTo(20);

        for (int i = 1; i <= 15; i++) {
            world = delete("s" + i).change().apply(world);
        }
        world = add("s16", "10.0.0.99").change().apply(world); // another address for a Service kept
        plan(cache, world);
        assertThat(cache.hashOrdersKept())
                .as("the orders of deleted Services and of addresses no Service has are forgotten")
                .isEqualTo(5);
    }

    private static void plan(PlanCache cache, World world) {
        NodePlan.Inputs in = world.inputs("node-1");
        assertThat(cache.nodePlan(in)).isEqualTo(NodePlan.compute(in));
        assertThat(cache.bgpPlan(in, Map.of(), Map.of())).isEqualTo(BgpPlan.compute(in, Map.of(), Map.of()));
    }

    /** A Service (new, or replacing the one of that name in place) with a ready endpoint: Cluster policy. */
    private static Step add(String name, String... ips) {
        return service("add or update " + name + " " + List.of(ips), name, false, LeaderChoiceTest.SERVED, ips);
    }

    private static Step unserved(String name, String... ips) {
        return service(name + " loses its endpoints", name, false, ServiceEndpoints.NONE, ips);
    }

    /** A Service with externalTrafficPolicy Local whose ready endpoints are on {@code endpointNodes}. */
    private static Step local(String name, String ip, String... endpointNodes) {
        return service(
                name + " Local, endpoints on " + List.of(endpointNodes),
                name,
                true,
                new ServiceEndpoints(endpointNodes.length > 0, Set.of(endpointNodes)),
                ip);
    }

    private static Step service(String step, String name, boolean local, ServiceEndpoints endpoints, String... ips) {
        ServiceState service = new ServiceState(
                new ServiceKey("default", name),
                Arrays.stream(ips).map(LeaderChoiceTest::ip).toList(),
                local,
                endpoints);
        return new Step(step, w -> {
            Map<String, ServiceState> services = new LinkedHashMap<>(w.services());
            services.put(name, service);
            return new World(w.config(), services, w.nodes(), w.links());
        });
    }

    private static Step delete(String name) {
        return new Step("delete " + name, w -> {
            Map<String, ServiceState> services = new LinkedHashMap<>(w.services());
            services.remove(name);
            return new World(w.config(), services, w.nodes(), w.links());
        });
    }

    private static Step fail(String node) {
        return nodeStep(node + " not Ready", node, LeaderChoiceTest.notReady(node));
    }

    private static Step back(String node) {
        return nodeStep(node + " Ready again", node, node(node));
    }

    private static Step judge(String node, Liveness liveness) {
        return nodeStep(node + " judged " + liveness, node, node(node).withLiveness(liveness));
    }

    private static Step join(String node) {
        return new Step(node + " joins", w -> {
            List<NodeState> nodes = new ArrayList<>(w.nodes());
            nodes.add(node(node));
            return new World(w.config(), w.services(), nodes, w.links());
        });
    }

    private static Step leave(String node) {
        return new Step(
                node + " leaves",
                w -> new World(
                        w.config(),
                        w.services(),
                        w.nodes().stream().filter(n -> !n.name().equals(node)).toList(),
                        w.links()));
    }

    private static Step labelled(String node, String label) {
        return nodeStep(node + " labelled " + label, node, node(node, label));
    }

    private static Step nodeStep(String step, String name, NodeState replacement) {
        return new Step(
                step,
                w -> new World(
                        w.config(),
                        w.services(),
                        w.nodes().stream()
                                .map(n -> n.name().equals(name) ? replacement : n)
                                .toList(),
                        w.links()));
    }

    private static Step configure(Config config) {
        return new Step("configuration changed", w -> new World(config, w.services(), w.nodes(), w.links()));
    }

    private static Step links(List<LinkInfo> links) {
        return new Step("interfaces " + links, w -> new World(w.config(), w.services(), w.nodes(), links));
    }

    @Test
    void theFixtureAddressesAreInThePool() {
        assertThat(LeaderChoice.poolOf(BOTH, ip("10.0.0.200"))).isPresent();
        assertThat(LeaderChoice.poolOf(SMALLER_POOL, ip("10.0.0.200"))).isEmpty();
    }
}

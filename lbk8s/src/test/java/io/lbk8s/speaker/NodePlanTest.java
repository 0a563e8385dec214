package io.lbk8s.speaker;

import static io.lbk8s.speaker.LeaderChoiceTest.POOL;
import static io.lbk8s.speaker.LeaderChoiceTest.config;
import static io.lbk8s.speaker.LeaderChoiceTest.ip;
import static io.lbk8s.speaker.LeaderChoiceTest.l2;
import static io.lbk8s.speaker.LeaderChoiceTest.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.config.Config;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.service.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodePlanTest {

    static final List<LinkInfo> LINKS = List.of(InterfaceChoiceTest.link("eth0 10.0.0.5/24 fd00::5/64"));
    static final List<NodeState> THREE = LeaderChoiceTest.THREE;

    static ServiceState service(String name, String... ips) {
        return new ServiceState(
                new ServiceKey("default", name),
                java.util.Arrays.stream(ips).map(LeaderChoiceTest::ip).toList(),
                false,
                LeaderChoiceTest.SERVED);
    }

    static NodePlan plan(
            String me, Config config, List<ServiceState> services, List<NodeState> nodes, List<LinkInfo> links) {
        return NodePlan.compute(new NodePlan.Inputs(
                me, config, services, nodes, LeaderChoice.Options.DEFAULT, links, InterfaceChoice.DEFAULT_EXCLUDED));
    }

    @Test
    void eachAddressIsAnnouncedByExactlyOneNode() {
        Config config = config(POOL, LeaderChoiceTest.EVERYWHERE);
        List<ServiceState> services = List.of(
                service("a", "10.0.0.1"),
                service("b", "10.0.0.2"),
                service("c", "10.0.0.3"),
                service("d", "10.0.0.4", "fd00::4"));
        Map<String, NodePlan> plans = new java.util.TreeMap<>();
        for (NodeState n : THREE) {
            plans.put(n.name(), plan(n.name(), config, services, THREE, LINKS));
        }
        assertThat(plans.get("node-3").announced().keySet()).contains(ip("10.0.0.1"), ip("10.0.0.2"));
        assertThat(plans.get("node-2").announced().keySet()).contains(ip("10.0.0.3"));
        int total = plans.values().stream().mapToInt(p -> p.announced().size()).sum();
        assertThat(total).isEqualTo(5);
        for (var p : plans.values()) {
            assertThat(p.problems()).isEmpty();
        }
        NodePlan.Announced a = plans.get("node-3").announced().get(ip("10.0.0.1"));
        assertThat(a.services()).containsExactly(new ServiceKey("default", "a"));
        assertThat(a.links()).extracting(LinkInfo::name).containsExactly("eth0");
    }

    @Test
    void sharedAddressListsBothServicesOnOneNode() {
        Config config = config(POOL, LeaderChoiceTest.EVERYWHERE);
        NodePlan p = plan("node-3", config, List.of(service("a", "10.0.0.1"), service("b", "10.0.0.1")), THREE, LINKS);
        assertThat(p.announced().get(ip("10.0.0.1")).services())
                .containsExactlyInAnyOrder(new ServiceKey("default", "a"), new ServiceKey("default", "b"));
        assertThat(p.interfacesByService())
                .isEqualTo(Map.of(
                        new ServiceKey("default", "a"),
                        Set.of("eth0"),
                        new ServiceKey("default", "b"),
                        Set.of("eth0")));
    }

    @Test
    void unannouncedAddressIsReportedByOneNodeOnly() {
        Config config = config(POOL, l2("other", "{ipAddressPools: [nope]}"));
        List<ServiceState> services = List.of(service("a", "10.0.0.1"));
        long reporters = THREE.stream()
                .filter(n -> !plan(n.name(), config, services, THREE, LINKS)
                        .problems()
                        .isEmpty())
                .count();
        assertThat(reporters).isEqualTo(1);
        NodePlan reporter = plan("node-3", config, services, THREE, LINKS); // node-3 is first in 10.0.0.1's hash order
        assertThat(reporter.problems()).singleElement().satisfies(problem -> {
            assertThat(problem.service()).isEqualTo(new ServiceKey("default", "a"));
            assertThat(problem.reason()).startsWith("no L2Advertisement selects pool \"lan\"");
        });
        assertThat(reporter.announced()).isEmpty();
    }

    @Test
    void leaderWithoutAMatchingInterfaceSaysSo() {
        Config config = config(POOL, LeaderChoiceTest.EVERYWHERE);
        NodePlan p = plan(
                "node-3",
                config,
                List.of(service("a", "10.0.0.1")),
                THREE,
                List.of(InterfaceChoiceTest.link("eth0 192.168.1.5/24")));
        assertThat(p.announced()).isEmpty();
        assertThat(p.problems())
                .singleElement()
                .extracting(NodePlan.Problem::reason)
                .isEqualTo(
                        "node node-3 leads 10.0.0.1 but no usable interface has a subnet containing it (it has: eth0 192.168.1.5/24)");
    }

    @Test
    void nodeNotReadyAnnouncesNothingAndTheNextTakesOver() {
        Config config = config(POOL, LeaderChoiceTest.EVERYWHERE);
        List<NodeState> node3Down = List.of(node("node-1"), node("node-2"), LeaderChoiceTest.notReady("node-3"));
        List<ServiceState> services = List.of(service("a", "10.0.0.1"));
        assertThat(plan("node-3", config, services, node3Down, LINKS).announced())
                .isEmpty();
        assertThat(plan("node-2", config, services, node3Down, LINKS).announced())
                .containsOnlyKeys(ip("10.0.0.1"));
    }

    /*
     * Hash orders (LeaderChoiceTest): 10.0.0.1: node-3, node-2, node-1; 10.0.0.2: node-3, node-1, node-2;
     * 10.0.0.3: node-2, node-3, node-1.
     */
    @Test
    void takeoversFromANodeThatFellSilentAreToldApartFromHandovers() {
        Config config = config(POOL, LeaderChoiceTest.EVERYWHERE);
        List<ServiceState> services =
                List.of(service("a", "10.0.0.1"), service("b", "10.0.0.2"), service("c", "10.0.0.3"));
        NodePlan.Inputs before = new NodePlan.Inputs(
                "node-2",
                config,
                services,
                THREE,
                LeaderChoice.Options.DEFAULT,
                LINKS,
                InterfaceChoice.DEFAULT_EXCLUDED);
        NodePlan planBefore = NodePlan.compute(before);
        assertThat(planBefore.announced().keySet()).containsExactly(ip("10.0.0.3"));
        List<NodeState> node3Gone =
                List.of(node("node-1"), node("node-2"), judged("node-3", io.lbk8s.peers.Liveness.DEAD));
        NodePlan after = plan("node-2", config, services, node3Gone, LINKS);
        assertThat(after.announced().keySet()).containsExactlyInAnyOrder(ip("10.0.0.1"), ip("10.0.0.3"));

        assertThat(NodePlan.takenFromFailedNodes(before, planBefore, after, "node-3"::equals))
                .as("node-3 fell silent: 10.0.0.1 is taken after the brief probe; 10.0.0.3 was ours already")
                .containsExactly(ip("10.0.0.1"));
        assertThat(NodePlan.takenFromFailedNodes(before, planBefore, after, node -> false))
                .as("node-3 left, or the API said so: a handover, taken after the quiet probe")
                .isEmpty();
        assertThat(NodePlan.takenFromFailedNodes(before, planBefore, planBefore, "node-3"::equals))
                .as("nothing new")
                .isEmpty();
        NodePlan withNewService = plan(
                "node-2",
                config,
                List.of(service("c", "10.0.0.3"), service("d", "10.0.0.9")),
                List.of(node("node-2")),
                LINKS);
        assertThat(withNewService.announced()).containsKey(ip("10.0.0.9"));
        assertThat(NodePlan.takenFromFailedNodes(before, planBefore, withNewService, node -> true))
                .as("an address no node had before is not taken from anyone")
                .isEmpty();
    }

    static NodeState judged(String name, io.lbk8s.peers.Liveness liveness) {
        return node(name).withLiveness(liveness);
    }

    @Test
    void withheldAddressesBecomeProblemsOfEachOfTheirServices() {
        var a = new NodePlan.Announced(
                ip("10.0.0.1"), Set.of(new ServiceKey("default", "gw"), new ServiceKey("default", "gw-dns")), LINKS);
        var b = new NodePlan.Announced(ip("10.0.0.200"), Set.of(new ServiceKey("default", "web")), LINKS);
        NodePlan plan = new NodePlan(Map.of(a.ip(), a, b.ip(), b), List.of());
        NodePlan kept = plan.withheld(x -> x.equals(ip("10.0.0.1"))
                ? java.util.Optional.of("10.0.0.1 is this node's gateway")
                : java.util.Optional.empty());
        assertThat(kept.announced()).containsOnlyKeys(ip("10.0.0.200"));
        assertThat(kept.problems())
                .containsExactly(
                        new NodePlan.Problem(
                                new ServiceKey("default", "gw"), ip("10.0.0.1"), "10.0.0.1 is this node's gateway"),
                        new NodePlan.Problem(
                                new ServiceKey("default", "gw-dns"),
                                ip("10.0.0.1"),
                                "10.0.0.1 is this node's gateway"));
        assertThat(plan.withheld(x -> java.util.Optional.empty())).isSameAs(plan);
        assertThat(plan.without(Set.of(ip("10.0.0.1"))).announced()).containsOnlyKeys(ip("10.0.0.200"));
        assertThat(plan.without(Set.of(ip("10.9.9.9")))).isSameAs(plan);
    }

    @Test
    void aPoolAdvertisedOverBgpOnlyIsNoLayer2Problem() {
        Config bgpOnly = BgpFixtures.withBgp(
                config(POOL),
                List.of(BgpFixtures.peer("tor", "10.0.0.254")),
                List.of(BgpFixtures.Adv.of("all")),
                List.of());
        List<ServiceState> services = List.of(service("a", "10.0.0.1"));
        for (NodeState n : THREE) {
            NodePlan p = plan(n.name(), bgpOnly, services, THREE, LINKS);
            assertThat(p.announced()).as(n.name()).isEmpty();
            assertThat(p.problems()).as(n.name()).isEmpty();
        }
    }

    @Test
    void aPoolWithBothIsAnnouncedBothWays() {
        Config both = BgpFixtures.withBgp(
                config(POOL, LeaderChoiceTest.EVERYWHERE),
                List.of(BgpFixtures.peer("tor", "10.0.0.254")),
                List.of(BgpFixtures.Adv.of("all")),
                List.of());
        List<ServiceState> services = List.of(service("a", "10.0.0.1"));
        assertThat(plan("node-3", both, services, THREE, LINKS).announced()).containsOnlyKeys(ip("10.0.0.1"));
        assertThat(BgpFixtures.render(both, services, THREE))
                .containsExactly(
                        "node-1 -> tor: 10.0.0.1/32", "node-2 -> tor: 10.0.0.1/32", "node-3 -> tor: 10.0.0.1/32");
    }

    @Test
    void aPoolNeitherKindSelectsIsReportedWithBothRemedies() {
        Config neither = BgpFixtures.withBgp(
                config(POOL),
                List.of(BgpFixtures.peer("tor", "10.0.0.254")),
                List.of(BgpFixtures.Adv.of("other").pools("elsewhere")),
                List.of());
        NodePlan reporter = plan("node-3", neither, List.of(service("a", "10.0.0.1")), THREE, LINKS);
        assertThat(reporter.problems())
                .extracting(NodePlan.Problem::reason)
                .containsExactly(
                        "no L2Advertisement selects pool \"lan\", so no node announces 10.0.0.1; create one (an"
                                + " empty spec selects every pool), or a BGPAdvertisement to announce it over BGP");
    }
}

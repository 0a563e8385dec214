package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigParser;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.config.Fixtures;
import io.lbk8s.peers.Liveness;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LeaderChoiceTest {

    /*
     * Hash orders computed outside Java, with `echo -n "node-N#IP" | sha256sum`:
     *   10.0.0.1: node-3, node-2, node-1      10.0.0.2: node-3, node-1, node-2
     *   10.0.0.3: node-2, node-3, node-1      fd00::200: node-3, node-1, node-2
     */

    static final String POOL = """
            apiVersion: metallb.io/v1beta1
            kind: IPAddressPool
            metadata: {name: lan, namespace: metallb-system}
            spec: {addresses: [10.0.0.0/24, 'fd00::/64']}
            """;

    static final String EVERYWHERE = l2("all", "{}");

    static String l2(String name, String spec) {
        return "---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata: {name: " + name
                + ", namespace: metallb-system}\nspec: " + spec + "\n";
    }

    static Config config(String... manifests) {
        ConfigResult result = ConfigParser.parse(Fixtures.fromYaml(String.join("", manifests)));
        assertThat(result.problems())
                .as("fixture config")
                .noneMatch(p -> p.toString().startsWith("ERROR"));
        return result.config();
    }

    static NodeState node(String name, String... labels) {
        Map<String, String> map = new java.util.HashMap<>();
        for (String label : labels) {
            String[] kv = label.split("=", 2);
            map.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
        map.put("kubernetes.io/hostname", name);
        return new NodeState(name, map, true, false, true);
    }

    static NodeState notReady(String name) {
        return new NodeState(name, Map.of(), false, false, true);
    }

    static NodeState noSpeaker(String name) {
        return new NodeState(name, Map.of(), true, false, false);
    }

    static NodeState judged(String name, Liveness liveness) {
        return node(name).withLiveness(liveness);
    }

    static NodeState networkUnavailable(String name) {
        return new NodeState(name, Map.of(), true, true, true);
    }

    /** A ready endpoint on node-1: with externalTrafficPolicy Cluster, any node may announce. */
    static final ServiceEndpoints SERVED = new ServiceEndpoints(true, Set.of("node-1"));

    static ServiceState cluster(String... ips) {
        return cluster(SERVED, ips);
    }

    static ServiceState cluster(ServiceEndpoints endpoints, String... ips) {
        return new ServiceState(
                new ServiceKey("default", "web"),
                Arrays.stream(ips).map(LeaderChoiceTest::ip).toList(),
                false,
                endpoints);
    }

    static ServiceState local(String ip, String... endpointNodes) {
        return new ServiceState(
                new ServiceKey("default", "web"),
                List.of(ip(ip)),
                true,
                new ServiceEndpoints(endpointNodes.length > 0, Set.of(endpointNodes)));
    }

    static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    static final List<NodeState> THREE = List.of(node("node-1"), node("node-2"), node("node-3"));

    static Stream<Arguments> cases() {
        String excluded = NodeState.EXCLUDE_LABEL;
        return Stream.of(
                arguments(
                        "hash order picks the first node",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        THREE,
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "another address, another first",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.3"),
                        THREE,
                        List.of("10.0.0.3 -> node-2")),
                arguments(
                        "node order in the input does not matter",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.2"),
                        List.of(node("node-3"), node("node-1"), node("node-2")),
                        List.of("10.0.0.2 -> node-3")),
                arguments(
                        "leader not Ready: the next in hash order",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), notReady("node-3")),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "leader's speaker not ready: the next",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), noSpeaker("node-3")),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "leader NetworkUnavailable: the next",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.2"),
                        List.of(node("node-1"), node("node-2"), networkUnavailable("node-3")),
                        List.of("10.0.0.2 -> node-1")),
                arguments(
                        "leader declared dead by the failure detector, though the API says Ready: the next",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), judged("node-3", Liveness.DEAD)),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "leader held back by the failure detector (rejoining): the next",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), judged("node-3", Liveness.HELD)),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "leader alive to the failure detector: stays",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(judged("node-1", Liveness.DEAD), node("node-2"), judged("node-3", Liveness.ALIVE)),
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "leader never heard by the detector: the API alone judges it",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), judged("node-3", Liveness.NOT_HEARD)),
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "the API's verdict still counts when the detector hears the node",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(
                                node("node-1"),
                                node("node-2"),
                                new NodeState("node-3", Map.of(), false, false, true, Liveness.ALIVE)),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "exclude label keeps the leader out",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2"), node("node-3", excluded)),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "nodeSelectors keep nodes out",
                        config(POOL, l2("edge", "{nodeSelectors: [{matchLabels: {edge: 'yes'}}]}")),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", "edge=yes"), node("node-2"), node("node-3")),
                        List.of("10.0.0.1 -> node-1")),
                arguments(
                        "nodeSelectors of two advertisements add up",
                        config(
                                POOL,
                                l2("a", "{nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}]}"),
                                l2("b", "{nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-2}}]}")),
                        cluster("10.0.0.1"),
                        THREE,
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "preferred node wins over the hash order",
                        config(
                                POOL,
                                l2(
                                        "pref",
                                        "{preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {zone: b}}}]}")),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", "zone=b"), node("node-2"), node("node-3")),
                        List.of("10.0.0.1 -> node-1")),
                arguments(
                        "higher summed weight first",
                        config(
                                POOL,
                                l2(
                                        "pref",
                                        "{preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {zone: b}}},"
                                                + " {weight: 5, preference: {matchLabels: {ssd: 'yes'}}}]}")),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", "zone=b"), node("node-2", "zone=b", "ssd=yes"), node("node-3")),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "equal weights fall back to the hash order",
                        config(
                                POOL,
                                l2(
                                        "pref",
                                        "{preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {zone: b}}}]}")),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", "zone=b"), node("node-2", "zone=b"), node("node-3")),
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "preferred node that is not Ready is skipped",
                        config(
                                POOL,
                                l2(
                                        "pref",
                                        "{preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {zone: b}}}]}")),
                        cluster("10.0.0.1"),
                        List.of(
                                new NodeState("node-1", Map.of("zone", "b"), false, false, true),
                                node("node-2"),
                                node("node-3")),
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "Cluster: a ready endpoint on any node lets the hash order choose",
                        config(POOL, EVERYWHERE),
                        cluster(new ServiceEndpoints(true, Set.of("node-1")), "10.0.0.1"),
                        THREE,
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "Cluster: a ready endpoint the slice places on no node counts too",
                        config(POOL, EVERYWHERE),
                        cluster(new ServiceEndpoints(true, Set.of()), "10.0.0.1"),
                        THREE,
                        List.of("10.0.0.1 -> node-3")),
                arguments(
                        "Cluster without any ready endpoint: no node announces",
                        config(POOL, EVERYWHERE),
                        cluster(ServiceEndpoints.NONE, "10.0.0.1"),
                        THREE,
                        List.of(
                                "10.0.0.1 silent: the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no"
                                        + " node announces 10.0.0.1; it is announced as soon as one is ready")),
                arguments(
                        "without a ready endpoint, both families of a dual-stack Service are silent",
                        config(POOL, EVERYWHERE),
                        cluster(ServiceEndpoints.NONE, "10.0.0.3", "fd00::200"),
                        THREE,
                        List.of(
                                "10.0.0.3 silent: the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no"
                                        + " node announces 10.0.0.3; it is announced as soon as one is ready",
                                "fd00::200 silent: the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no"
                                        + " node announces fd00::200; it is announced as soon as one is ready")),
                arguments(
                        "a missing L2Advertisement is said before a missing endpoint",
                        config(POOL),
                        cluster(ServiceEndpoints.NONE, "10.0.0.1"),
                        THREE,
                        List.of(
                                "10.0.0.1 silent: no L2Advertisement selects pool \"lan\", so no node announces 10.0.0.1;"
                                        + " create one (an empty spec selects every pool)")),
                arguments(
                        "Local: only a node with a ready endpoint",
                        config(POOL, EVERYWHERE),
                        local("10.0.0.1", "node-1"),
                        THREE,
                        List.of("10.0.0.1 -> node-1")),
                arguments(
                        "Local: hash order among nodes with endpoints",
                        config(POOL, EVERYWHERE),
                        local("10.0.0.1", "node-1", "node-2"),
                        THREE,
                        List.of("10.0.0.1 -> node-2")),
                arguments(
                        "dual-stack: both families from the node of the first address",
                        config(POOL, EVERYWHERE),
                        cluster("fd00::200", "10.0.0.3"),
                        THREE,
                        List.of("10.0.0.3 -> node-2", "fd00::200 -> node-2")),
                arguments(
                        "IPv6 alone uses its own hash",
                        config(POOL, EVERYWHERE),
                        cluster("fd00::200"),
                        THREE,
                        List.of("fd00::200 -> node-3")),
                arguments(
                        "pool not selected by any advertisement",
                        config(POOL, l2("other", "{ipAddressPools: [other]}")),
                        cluster("10.0.0.1"),
                        THREE,
                        List.of(
                                "10.0.0.1 silent: no L2Advertisement selects pool \"lan\", so no node announces 10.0.0.1;"
                                        + " create one (an empty spec selects every pool)")),
                arguments(
                        "no advertisement at all",
                        config(POOL),
                        cluster("10.0.0.1"),
                        THREE,
                        List.of(
                                "10.0.0.1 silent: no L2Advertisement selects pool \"lan\", so no node announces 10.0.0.1;"
                                        + " create one (an empty spec selects every pool)")),
                arguments(
                        "address outside every pool",
                        config(POOL, EVERYWHERE),
                        cluster("192.168.1.240"),
                        THREE,
                        List.of(
                                "192.168.1.240 silent: 192.168.1.240 is in no configured address pool, so no node announces it")),
                arguments(
                        "every node carries the exclude label",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", excluded), node("node-2", excluded)),
                        List.of(
                                "10.0.0.1 silent: no node can announce 10.0.0.1: every node (node-1, node-2) carries the label "
                                        + excluded)),
                arguments(
                        "several reasons, each node named",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(node("node-1", excluded), notReady("node-2"), noSpeaker("node-3")),
                        List.of("10.0.0.1 silent: no node can announce 10.0.0.1: node-1 carries the label " + excluded
                                + "; node-2 is not Ready; node-3 has no ready speaker")),
                arguments(
                        "every node dead or held, each reason named",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(judged("node-1", Liveness.DEAD), judged("node-2", Liveness.HELD)),
                        List.of(
                                "10.0.0.1 silent: no node can announce 10.0.0.1: node-1 is not heard by the failure detector"
                                        + " (its speaker missed its heartbeats, or stopped); node-2 is held back by the failure detector"
                                        + " (starting, resuming, or rejoining after a failure)")),
                arguments(
                        "Local without any ready endpoint",
                        config(POOL, EVERYWHERE),
                        local("10.0.0.1"),
                        THREE,
                        List.of(
                                "10.0.0.1 silent: the Service has no ready endpoint, and with externalTrafficPolicy: Local"
                                        + " only a node with one may announce 10.0.0.1")),
                arguments(
                        "Local endpoint only on an excluded node",
                        config(POOL, EVERYWHERE),
                        local("10.0.0.1", "node-1"),
                        List.of(node("node-1", excluded), node("node-2")),
                        List.of("10.0.0.1 silent: no node can announce 10.0.0.1: node-1 carries the label " + excluded
                                + "; node-2 has no ready endpoint of the Service (externalTrafficPolicy: Local)")),
                arguments(
                        "no nodes",
                        config(POOL, EVERYWHERE),
                        cluster("10.0.0.1"),
                        List.of(),
                        List.of("10.0.0.1 silent: no node runs a ready speaker, so no node announces 10.0.0.1")),
                arguments(
                        "nodeSelectors match nothing",
                        config(POOL, l2("edge", "{nodeSelectors: [{matchLabels: {edge: 'yes'}}]}")),
                        cluster("10.0.0.1"),
                        List.of(node("node-1"), node("node-2")),
                        List.of(
                                "10.0.0.1 silent: no node can announce 10.0.0.1: every node (node-1, node-2) is not selected by"
                                        + " the nodeSelectors of \"edge\"")),
                arguments(
                        "a Service without addresses gets no decision",
                        config(POOL, EVERYWHERE),
                        cluster(),
                        THREE,
                        List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, Config config, ServiceState service, List<NodeState> nodes, List<String> expected) {
        assertThat(render(LeaderChoice.decide(config, service, nodes, LeaderChoice.Options.DEFAULT)))
                .isEqualTo(expected);
    }

    @Test
    void ignoreExcludeLabelLetsExcludedNodesAnnounce() {
        List<NodeState> nodes =
                List.of(node("node-1", NodeState.EXCLUDE_LABEL), node("node-2", NodeState.EXCLUDE_LABEL));
        assertThat(render(LeaderChoice.decide(
                        config(POOL, EVERYWHERE), cluster("10.0.0.2"), nodes, new LeaderChoice.Options(true))))
                .containsExactly("10.0.0.2 -> node-1");
    }

    @Test
    void sharedAddressAnnouncesFromOneNodeWhateverTheService() {
        Config config = config(POOL, EVERYWHERE);
        for (int i = 1; i <= 40; i++) {
            IpAddress ip = ip("10.0.0." + i);
            ServiceState a = new ServiceState(new ServiceKey("default", "a"), List.of(ip), false, SERVED);
            ServiceState b = new ServiceState(new ServiceKey("other", "b"), List.of(ip), false, SERVED);
            assertThat(LeaderChoice.decide(config, a, THREE, LeaderChoice.Options.DEFAULT))
                    .isEqualTo(LeaderChoice.decide(config, b, THREE, LeaderChoice.Options.DEFAULT));
        }
    }

    @Test
    void leadershipSpreadsOverNodes() {
        Config config = config(POOL, EVERYWHERE);
        Map<String, Integer> counts = new java.util.TreeMap<>();
        for (int i = 1; i <= 240; i++) {
            var led = (Announcement.Led)
                    LeaderChoice.decide(config, cluster("10.0.0." + i), THREE, LeaderChoice.Options.DEFAULT)
                            .getFirst();
            counts.merge(led.node(), 1, Integer::sum);
        }
        assertThat(counts.keySet()).containsExactly("node-1", "node-2", "node-3");
        assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(50, 110));
    }

    @Test
    void losingTheLeaderMovesOnlyItsAddresses() {
        Config config = config(POOL, EVERYWHERE);
        List<NodeState> withoutNode2 = List.of(node("node-1"), notReady("node-2"), node("node-3"));
        for (int i = 1; i <= 100; i++) {
            String before = ((Announcement.Led)
                            LeaderChoice.decide(config, cluster("10.0.0." + i), THREE, LeaderChoice.Options.DEFAULT)
                                    .getFirst())
                    .node();
            String after = ((Announcement.Led) LeaderChoice.decide(
                                    config, cluster("10.0.0." + i), withoutNode2, LeaderChoice.Options.DEFAULT)
                            .getFirst())
                    .node();
            if (!before.equals("node-2")) {
                assertThat(after).as("10.0.0.%d stays on its node", i).isEqualTo(before);
            } else {
                assertThat(after).isNotEqualTo("node-2");
            }
        }
    }

    @Test
    void ledNamesTheAdvertisementsThatApplyToTheLeader() {
        Config config = config(
                POOL,
                l2("a", "{interfaces: [eth0]}"),
                l2("b", "{nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-1}}], interfaces: [eth1]}"));
        var led =
                (Announcement.Led) LeaderChoice.decide(config, cluster("10.0.0.1"), THREE, LeaderChoice.Options.DEFAULT)
                        .getFirst();
        assertThat(led.node()).isEqualTo("node-3");
        assertThat(led.pool().name()).isEqualTo("lan");
        assertThat(led.advertisements()).extracting(a -> a.name()).containsExactly("a");
    }

    @Test
    void reporterIsOneReadySpeakerAgreedByAll() {
        assertThat(LeaderChoice.reporterOf(ip("10.0.0.1"), THREE)).contains("node-3");
        assertThat(LeaderChoice.reporterOf(
                        ip("10.0.0.1"), List.of(node("node-1"), node("node-2"), noSpeaker("node-3"))))
                .contains("node-2");
        assertThat(LeaderChoice.reporterOf(ip("10.0.0.1"), List.of(noSpeaker("node-1"))))
                .isEmpty();
        // a not-Ready node with a running speaker still reports: it can see the problem
        assertThat(LeaderChoice.reporterOf(ip("10.0.0.1"), List.of(node("node-1"), notReady("node-3"))))
                .contains("node-3");
        // a node the detector declared dead cannot report; one it never heard (the API alone judges it) can
        assertThat(LeaderChoice.reporterOf(ip("10.0.0.1"), List.of(node("node-1"), judged("node-3", Liveness.DEAD))))
                .contains("node-1");
        assertThat(LeaderChoice.reporterOf(ip("10.0.0.1"), List.of(node("node-1"), judged("node-3", Liveness.HELD))))
                .contains("node-1");
        assertThat(LeaderChoice.reporterOf(
                        ip("10.0.0.1"), List.of(node("node-1"), judged("node-3", Liveness.NOT_HEARD))))
                .contains("node-3");
    }

    static List<String> render(List<Announcement> announcements) {
        List<String> lines = new ArrayList<>();
        for (Announcement a : announcements) {
            lines.add(
                    switch (a) {
                        case Announcement.Led led -> led.ip() + " -> " + led.node();
                        case Announcement.Unannounced silent -> silent.ip() + " silent: " + silent.reason();
                        case Announcement.BgpOnly bgp -> bgp.ip() + " over BGP only";
                    });
        }
        return lines;
    }
}

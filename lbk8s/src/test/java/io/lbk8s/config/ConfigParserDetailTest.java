package io.lbk8s.config;

import static io.lbk8s.config.ConfigParserTest.configMap;
import static io.lbk8s.config.ConfigParserTest.l2;
import static io.lbk8s.config.ConfigParserTest.manifests;
import static io.lbk8s.config.ConfigParserTest.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the parsed configuration holds, beyond names and ranges; determinism; speed. */
class ConfigParserDetailTest {

    static Stream<Arguments> fixtures() {
        return Stream.of(
                argumentSet(
                        "openstack",
                        "openstack-ingress.yaml",
                        "ingress",
                        ConfigOrigin.Kind.IPAddressPool,
                        "metallb-system",
                        "ingress",
                        "192.0.2.10",
                        "192.0.2.10",
                        1L,
                        List.of("ingress")),
                argumentSet(
                        "proxmox",
                        "proxmox-ingress.yaml",
                        "ingress",
                        ConfigOrigin.Kind.IPAddressPool,
                        "metallb-system",
                        "ingress",
                        "203.0.113.75",
                        "203.0.113.78",
                        4L,
                        List.of("ingress")),
                argumentSet(
                        "homelab",
                        "homelab-pool.yaml",
                        "default-pool",
                        ConfigOrigin.Kind.IPAddressPool,
                        "metallb-system",
                        "default-pool",
                        "192.168.68.200",
                        "192.168.68.220",
                        21L,
                        List.of("default-l2")),
                argumentSet(
                        "lbk8s ConfigMap",
                        "lbk8s-configmap.yaml",
                        "default",
                        ConfigOrigin.Kind.ConfigMap,
                        "lbk8s-system",
                        "lbk8s-config",
                        "10.5.0.200",
                        "10.5.0.220",
                        21L,
                        List.of()));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void fixtureParsesToOnePool(
            String resource,
            String poolName,
            ConfigOrigin.Kind kind,
            String namespace,
            String objectName,
            String first,
            String last,
            long size,
            List<String> advertisements) {
        ConfigResult result = ConfigParser.parse(Fixtures.load(resource));
        assertThat(result.valid()).isTrue();
        assertThat(result.problems()).isEmpty();
        AddressPool pool = result.config().pool(poolName).orElseThrow();
        assertThat(result.config().pools()).containsExactly(pool);
        assertThat(pool.origin()).isEqualTo(new ConfigOrigin(kind, namespace, objectName));
        assertThat(pool.ranges()).hasSize(1);
        IpRange range = pool.ranges().getFirst();
        assertThat(range.first()).isEqualTo(IpAddress.parse(first).orElseThrow());
        assertThat(range.last()).isEqualTo(IpAddress.parse(last).orElseThrow());
        assertThat(range.size()).isEqualTo(size);
        assertThat(pool.autoAssign()).isTrue();
        assertThat(pool.avoidBuggyIPs()).isFalse();
        assertThat(pool.serviceAllocation()).isEmpty();
        assertThat(pool.labels()).isEmpty();
        assertThat(pool.hasFamily(IpFamily.IPv4)).isTrue();
        assertThat(pool.hasFamily(IpFamily.IPv6)).isFalse();
        assertThat(result.config().l2Advertisements())
                .map(L2Advertisement::name)
                .containsExactlyElementsOf(advertisements);
        for (L2Advertisement advertisement : result.config().l2Advertisements()) {
            assertThat(advertisement.ipAddressPools()).containsExactly(poolName);
            assertThat(advertisement.selects(pool)).isTrue();
            assertThat(advertisement.nodeSelectors()).isEmpty();
            assertThat(advertisement.interfaces()).isEmpty();
            assertThat(advertisement.origin())
                    .isEqualTo(new ConfigOrigin(
                            ConfigOrigin.Kind.L2Advertisement, "metallb-system", advertisement.name()));
        }
    }

    @Test
    void readsEveryPoolField() {
        ConfigResult result = ConfigParser.parse(Fixtures.fromYaml("""
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata:
                  name: reserved
                  namespace: metallb-system
                  labels: {tier: edge, zone: a}
                spec:
                  addresses: [10.0.0.0/24, "fd00::/120"]
                  autoAssign: false
                  avoidBuggyIPs: true
                  serviceAllocation:
                    priority: 50
                    namespaces: [team-a, team-b]
                    namespaceSelectors:
                    - matchLabels: {team: a}
                    serviceSelectors:
                    - matchExpressions:
                      - {key: app, operator: In, values: [web, api]}
                      - {key: canary, operator: DoesNotExist}
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata: {name: edge, namespace: metallb-system}
                spec:
                  ipAddressPoolSelectors:
                  - matchExpressions: [{key: tier, operator: Exists}]
                  nodeSelectors:
                  - matchLabels: {kubernetes.io/os: linux}
                  preferredNodeSelectors:
                  - weight: 60
                    preference: {matchLabels: {zone: a}}
                  - weight: 30
                    preference: {matchExpressions: [{key: fast-nic, operator: Exists}]}
                  interfaces: [eth0]
                """));
        assertThat(result.problems()).isEmpty();
        AddressPool pool = result.config().pool("reserved").orElseThrow();
        assertThat(pool.autoAssign()).isFalse();
        assertThat(pool.avoidBuggyIPs()).isTrue();
        assertThat(pool.labels()).isEqualTo(Map.of("tier", "edge", "zone", "a"));
        assertThat(pool.ranges()).map(IpRange::text).containsExactly("10.0.0.0/24", "fd00::/120");
        assertThat(pool.hasFamily(IpFamily.IPv6)).isTrue();
        assertThat(pool.forbids(IpAddress.parse("10.0.0.255").orElseThrow())).isTrue();
        ServiceAllocation allocation = pool.serviceAllocation().orElseThrow();
        assertThat(allocation.priority()).isEqualTo(50);
        assertThat(allocation.namespaces()).isEqualTo(Set.of("team-a", "team-b"));
        assertThat(allocation.namespaceSelectors()).containsExactly(new LabelSelector(Map.of("team", "a"), List.of()));
        assertThat(allocation.serviceSelectors())
                .containsExactly(new LabelSelector(
                        Map.of(),
                        List.of(
                                new LabelSelector.Requirement("app", LabelSelector.Operator.In, Set.of("web", "api")),
                                new LabelSelector.Requirement(
                                        "canary", LabelSelector.Operator.DoesNotExist, Set.of()))));
        LabelSelector services = allocation.serviceSelectors().getFirst();
        assertThat(services.matches(Map.of("app", "web"))).isTrue();
        assertThat(services.matches(Map.of("app", "web", "canary", "yes"))).isFalse();

        L2Advertisement advertisement = result.config().l2Advertisements().getFirst();
        assertThat(advertisement.selects(pool)).isTrue();
        assertThat(advertisement.nodeSelectors())
                .containsExactly(new LabelSelector(Map.of("kubernetes.io/os", "linux"), List.of()));
        assertThat(advertisement.interfaces()).containsExactly("eth0");
        assertThat(advertisement.preferredNodeSelectors())
                .extracting(PreferredNodeSelector::weight)
                .containsExactly(60, 30);
        assertThat(advertisement.allowsNode(Map.of("kubernetes.io/os", "linux")))
                .isTrue();
        assertThat(advertisement.allowsNode(Map.of("kubernetes.io/os", "windows")))
                .isFalse();
        assertThat(advertisement.preferenceWeight(Map.of("zone", "a", "fast-nic", "")))
                .isEqualTo(90);
        assertThat(advertisement.preferenceWeight(Map.of("fast-nic", "yes"))).isEqualTo(30);
        assertThat(advertisement.preferenceWeight(Map.of("zone", "b"))).isZero();
    }

    @Test
    void serviceAllocationWithoutFieldsIsPresentAndEmpty() {
        ConfigResult result =
                ConfigParser.parse(manifests(pool("p", "{addresses: [10.0.0.0/24], serviceAllocation: {}}")));
        assertThat(result.config().pool("p").orElseThrow().serviceAllocation())
                .contains(new ServiceAllocation(0, Set.of(), List.of(), List.of()));
    }

    @Test
    void configMapPoolsHaveNoLabelsAndTheConfigMapAsOrigin() {
        ConfigResult result = ConfigParser.parse(
                configMap(
                        "pools:\n- name: b\n  addresses: [10.0.1.0/24]\n  autoAssign: false\n- name: a\n  addresses: [10.0.0.0/24]\n"));
        assertThat(result.config().pools()).map(AddressPool::name).containsExactly("a", "b");
        for (AddressPool pool : result.config().pools()) {
            assertThat(pool.labels()).isEmpty();
            assertThat(pool.origin())
                    .isEqualTo(new ConfigOrigin(ConfigOrigin.Kind.ConfigMap, "lbk8s-system", "lbk8s-config"));
        }
        assertThat(result.config().pool("b").orElseThrow().autoAssign()).isFalse();
    }

    @Test
    void advertisementsAreSortedAndKeptWithWarnings() {
        ConfigResult result = ConfigParser.parse(
                manifests(l2("zz", "{ipAddressPools: [missing]}"), l2("aa", "{}"), l2("mm", "null")));
        assertThat(result.valid()).isTrue();
        assertThat(result.config().l2Advertisements())
                .map(L2Advertisement::name)
                .containsExactly("aa", "mm", "zz");
        assertThat(result.config().l2Advertisements().getLast().ipAddressPools())
                .containsExactly("missing");
    }

    @Test
    void invalidAdvertisementIsLeftOut() {
        ConfigResult result = ConfigParser.parse(manifests(
                l2("bad", "{nodeSelectors: [{matchExpressions: [{key: a, operator: In}]}]}"), l2("good", "{}")));
        assertThat(result.valid()).isFalse();
        assertThat(result.config().l2Advertisements())
                .map(L2Advertisement::name)
                .containsExactly("good");
    }

    @Test
    void configYamlWithTwoDocumentsIsRefused() {
        ConfigResult result = ConfigParser.parse(configMap("pools: []\n---\npools: []\n"));
        assertThat(result.problems())
                .map(ConfigProblem::toString)
                .containsExactly(
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: config.yaml has 2 YAML documents; expected one");
    }

    @Test
    void invalidResultStillCarriesTheValidParts() {
        ConfigResult result = ConfigParser.parse(Fixtures.combine(
                Fixtures.load("homelab-pool.yaml"),
                manifests(pool("broken", "{addresses: [10.0.0.0/24, 10.0.0.0/25]}"))));
        assertThat(result.valid()).isFalse();
        assertThat(result.config().pools()).map(AddressPool::name).containsExactly("default-pool");
        assertThat(result.problems()).singleElement().satisfies(p -> {
            assertThat(p.severity()).isEqualTo(ConfigProblem.Severity.ERROR);
            assertThat(p.origin())
                    .isEqualTo(new ConfigOrigin(ConfigOrigin.Kind.IPAddressPool, "metallb-system", "broken"));
            assertThat(p.message())
                    .isEqualTo("addresses[1] \"10.0.0.0/25\" overlaps addresses[0] \"10.0.0.0/24\" of the same pool");
        });
    }

    // --- determinism ---------------------------------------------------------------------------------------------

    /** A messy configuration: valid pools, overlaps, duplicates, warnings, a ConfigMap. */
    static ConfigSources messy() {
        List<String> documents = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            documents.add(ConfigParserTest.poolIn(
                    "ns-" + (i % 3), "pool-" + (i % 37), "{addresses: [10." + (i % 29) + ".0.0/24], x: 1}"));
            documents.add(l2("adv-" + i, "{ipAddressPools: [pool-" + i + "]}"));
        }
        return Fixtures.combine(
                Fixtures.fromYaml(String.join("", documents)),
                configMap(
                        "pools:\n- name: pool-3\n  addresses: [10.3.0.0/16]\n- name: cm\n  addresses: [10.200.0.0/24]\n"),
                new ConfigSources(
                        List.of(),
                        List.of(),
                        List.of(new ConfigSources.RawConfigMap(
                                "a-ns", "other", "pools: [{name: z, addresses: [10.201.0.0/24]}]"))));
    }

    @Test
    void sameInputInAnyOrderGivesTheSameResult() {
        ConfigSources sources = messy();
        ConfigResult expected = ConfigParser.parse(sources);
        assertThat(expected.valid()).isFalse();
        assertThat(expected.problems()).hasSizeGreaterThan(40);
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            List<ConfigSources.RawObject> pools = new ArrayList<>(sources.ipAddressPools());
            List<ConfigSources.RawObject> advertisements = new ArrayList<>(sources.l2Advertisements());
            List<ConfigSources.RawConfigMap> configMaps = new ArrayList<>(sources.configMaps());
            Collections.shuffle(pools, random);
            Collections.shuffle(advertisements, random);
            Collections.shuffle(configMaps, random);
            assertThat(ConfigParser.parse(new ConfigSources(pools, advertisements, configMaps)))
                    .isEqualTo(expected);
        }
    }

    // --- purity ------------------------------------------------------------------------------------------------

    @Test
    void configPackageHasNoKubernetesOrIoImports() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("src/main/java/io/lbk8s/config");
        assertThat(dir).isDirectory();
        try (var files = java.nio.file.Files.list(dir)) {
            for (java.nio.file.Path file : files.toList()) {
                for (String line : java.nio.file.Files.readAllLines(file)) {
                    if (line.startsWith("import ")) {
                        assertThat(line)
                                .as(file.getFileName().toString())
                                .doesNotContain("io.fabric8", "java.io.", "java.nio.", "java.net.", "java.lang.System");
                    }
                }
            }
        }
    }

    // --- speed ---------------------------------------------------------------------------------------------------

    static ConfigSources manyPools(int count, boolean withOverlap) {
        List<ConfigSources.RawObject> pools = new ArrayList<>();
        List<ConfigSources.RawObject> advertisements = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // two ranges per pool, one IPv4 /28 and one IPv6 /120, none overlapping
            String v4 = "10." + (i / 256) + "." + (i % 256) + ".0/28";
            String v6 = "fd00::" + Integer.toHexString(i) + ":0/120";
            pools.add(new ConfigSources.RawObject(
                    "metallb-system",
                    String.format("pool-%04d", i),
                    Map.of("n", "" + i),
                    Map.of("addresses", List.of(v4, v6), "autoAssign", i % 2 == 0),
                    "2026-12-01T10:00:00Z"));
            advertisements.add(new ConfigSources.RawObject(
                    "metallb-system",
                    "adv-" + i,
                    Map.of(),
                    Map.of("ipAddressPools", List.of(String.format("pool-%04d", i)))));
        }
        if (withOverlap) {
            pools.add(new ConfigSources.RawObject(
                    "metallb-system",
                    "late",
                    Map.of(),
                    Map.of("addresses", List.of("10.3.7.8-10.3.7.9")),
                    "2026-12-03T10:00:00Z"));
        }
        return new ConfigSources(pools, advertisements, List.of());
    }

    @Test
    void thousandPoolsParseFast() {
        ConfigSources sources = manyPools(1000, false);
        ConfigResult result = ConfigParser.parse(sources);
        assertThat(result.problems()).isEmpty();
        assertThat(result.config().pools()).hasSize(1000);
        assertThat(result.config().l2Advertisements()).hasSize(1000);
    }

    @Test
    @Timeout(60) // a guard against a hang, not a speed claim (a quadratic check would be 10^8 range pairs)
    void tenThousandPoolsWithOneOverlapFindIt() {
        ConfigSources sources = manyPools(10_000, true);
        ConfigResult result = ConfigParser.parse(sources);
        assertThat(result.problems())
                .map(ConfigProblem::toString)
                .containsExactly(
                        "ERROR IPAddressPool metallb-system/late: addresses[0] \"10.3.7.8-10.3.7.9\" overlaps addresses[0] \"10.3.7.0/28\" of pool \"pool-0775\" (IPAddressPool metallb-system/pool-0775)");
        assertThat(result.config().pools()).hasSize(10_000);
    }
}

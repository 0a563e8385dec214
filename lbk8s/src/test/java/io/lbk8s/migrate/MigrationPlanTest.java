package io.lbk8s.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.ConfigSources.RawConfigMap;
import io.lbk8s.config.ConfigSources.RawObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven: what is in the cluster (and --from) → what {@code lbk8s migrate} creates, finds already there,
 * refuses, leaves out, and the commands it prints to delete the originals, one line each.
 */
class MigrationPlanTest {
    static final String TARGET = "lbk8s-system";
    static final String LEGACY = "address-pools:\n- {name: legacy, protocol: layer2, addresses: [10.0.9.0/28]}\n"
            + "- {name: routed, protocol: bgp, addresses: [198.51.100.0/24]}\n";

    static RawObject pool(String namespace, String name, Object... addressesThenFlags) {
        Map<String, Object> spec = new java.util.LinkedHashMap<>();
        spec.put("addresses", List.of(addressesThenFlags[0]));
        for (int i = 1; i + 1 < addressesThenFlags.length; i += 2) {
            spec.put((String) addressesThenFlags[i], addressesThenFlags[i + 1]);
        }
        return new RawObject(namespace, name, Map.of(), spec);
    }

    static RawObject l2(String namespace, String name, String... pools) {
        return new RawObject(
                namespace, name, Map.of(), pools.length == 0 ? Map.of() : Map.of("ipAddressPools", List.of(pools)));
    }

    static MigrationPlan.Found found(List<RawObject> pools, List<RawObject> l2, String... legacyTexts) {
        List<RawConfigMap> legacy = Stream.of(legacyTexts)
                .map(t -> new RawConfigMap("metallb-system", "config", t))
                .toList();
        return found(Map.of(ConfigOrigin.Kind.IPAddressPool, pools, ConfigOrigin.Kind.L2Advertisement, l2), legacy);
    }

    static MigrationPlan.Found found(Map<ConfigOrigin.Kind, List<RawObject>> objects, List<RawConfigMap> legacy) {
        return new MigrationPlan.Found(objects, legacy, Optional.empty());
    }

    static RawObject object(String namespace, String name, Map<String, Object> spec) {
        return new RawObject(namespace, name, Map.of(), spec);
    }

    static Map<String, Object> peer(String address, Map<String, Object> more) {
        Map<String, Object> spec = new java.util.LinkedHashMap<>();
        spec.put("myASN", 64512);
        spec.put("peerASN", 64500);
        spec.put("peerAddress", address);
        spec.putAll(more);
        return spec;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                argumentSet(
                        "MetalLB's namespace copied, its labels kept",
                        Set.of(),
                        found(
                                List.of(
                                        pool("metallb-system", "default", "10.0.0.0/28", "autoAssign", true),
                                        new RawObject(
                                                "metallb-system",
                                                "lab",
                                                Map.of("tier", "lab"),
                                                Map.of("addresses", List.of("10.0.1.0/28")))),
                                List.of(l2("metallb-system", "all"))),
                        List.of(
                                "create IPAddressPool default {addresses=[10.0.0.0/28], autoAssign=true} from IPAddressPool metallb-system/default",
                                "create IPAddressPool lab {tier=lab} {addresses=[10.0.1.0/28]} from IPAddressPool metallb-system/lab",
                                "create L2Advertisement all {} from L2Advertisement metallb-system/all",
                                "delete: kubectl delete ipaddresspools.metallb.io -n metallb-system default lab",
                                "delete: kubectl delete l2advertisements.metallb.io -n metallb-system all")),
                argumentSet(
                        "what install made from the same range is already there (the CRD's defaults aside)",
                        Set.of(),
                        found(
                                List.of(
                                        pool(TARGET, "default", "10.0.0.0/28"),
                                        pool(
                                                "metallb-system",
                                                "default",
                                                "10.0.0.0/28",
                                                "autoAssign",
                                                true,
                                                "avoidBuggyIPs",
                                                false)),
                                List.of(l2(TARGET, "default", "default"), l2("metallb-system", "default", "default"))),
                        List.of(
                                "unchanged IPAddressPool default",
                                "unchanged L2Advertisement default",
                                "delete: kubectl delete ipaddresspools.metallb.io -n metallb-system default",
                                "delete: kubectl delete l2advertisements.metallb.io -n metallb-system default")),
                argumentSet(
                        "a name already taken by another spec: refused, no delete command",
                        Set.of(),
                        found(
                                List.of(
                                        pool(TARGET, "default", "10.0.0.0/28"),
                                        pool("metallb-system", "default", "10.0.5.0/28")),
                                List.of()),
                        List.of(
                                "refused: IPAddressPool \"default\" already exists in lbk8s-system with another spec than the one from "
                                        + "IPAddressPool metallb-system/default: rename or remove one of them")),
                argumentSet(
                        "one name from two namespaces with different specs: refused",
                        Set.of(),
                        found(
                                List.of(pool("team-a", "web", "10.0.0.0/28"), pool("team-b", "web", "10.0.1.0/28")),
                                List.of()),
                        List.of(
                                "refused: IPAddressPool \"web\" comes from both IPAddressPool team-a/web and IPAddressPool team-b/web "
                                        + "with different specs: rename or remove one of them")),
                argumentSet(
                        "a result lbk8s would reject (overlapping ranges): refused",
                        Set.of(),
                        found(
                                List.of(
                                        pool(TARGET, "default", "10.0.0.0/24"),
                                        pool("metallb-system", "other", "10.0.0.128/25")),
                                List.of()),
                        List.of(
                                "refused: lbk8s would reject the result: ERROR IPAddressPool lbk8s-system/other: addresses[0] "
                                        + "\"10.0.0.128/25\" overlaps addresses[0] \"10.0.0.0/24\" of pool \"default\" "
                                        + "(IPAddressPool lbk8s-system/default)")),
                argumentSet(
                        "--from: only that namespace",
                        Set.of("team-a"),
                        found(
                                List.of(pool("team-a", "a", "10.0.0.0/28"), pool("team-b", "b", "10.0.1.0/28")),
                                List.of(),
                                LEGACY),
                        List.of(
                                "create IPAddressPool a {addresses=[10.0.0.0/28]} from IPAddressPool team-a/a",
                                "delete: kubectl delete ipaddresspools.metallb.io -n team-a a")),
                argumentSet(
                        "the legacy ConfigMap converted, its BGP pool left out",
                        Set.of(),
                        found(List.of(), List.of(), LEGACY),
                        List.of(
                                "create IPAddressPool legacy {addresses=[10.0.9.0/28]} from ConfigMap metallb-system/config",
                                "create L2Advertisement legacy {ipAddressPools=[legacy]} from ConfigMap metallb-system/config",
                                "left out: ConfigMap metallb-system/config: pool \"routed\" uses protocol \"bgp\", not layer2: left out, "
                                        + "lbk8s migrate converts layer2 pools only (write an IPAddressPool and a BGPAdvertisement for it)",
                                "delete: kubectl delete configmap -n metallb-system config")),
                argumentSet(
                        "BGP objects copied like the pools, those that others name first",
                        Set.of(),
                        found(
                                Map.of(
                                        ConfigOrigin.Kind.IPAddressPool,
                                        List.of(pool("metallb-system", "routed", "198.51.100.0/28")),
                                        ConfigOrigin.Kind.BGPAdvertisement,
                                        List.of(object(
                                                "metallb-system",
                                                "routed",
                                                new TreeMap<String, Object>(Map.of(
                                                        "ipAddressPools",
                                                        List.of("routed"),
                                                        "communities",
                                                        List.of("no-export"))))),
                                        ConfigOrigin.Kind.BGPPeer,
                                        List.of(object(
                                                "metallb-system",
                                                "tor",
                                                peer("10.0.0.254", Map.of("bfdProfile", "fast")))),
                                        ConfigOrigin.Kind.Community,
                                        List.of(object(
                                                "metallb-system",
                                                "aliases",
                                                Map.of(
                                                        "communities",
                                                        List.of(new TreeMap<>(Map.of(
                                                                "name", "no-export", "value", "65535:65281")))))),
                                        ConfigOrigin.Kind.BFDProfile,
                                        List.of(object("metallb-system", "fast", Map.of("receiveInterval", 300)))),
                                List.of()),
                        List.of(
                                "create IPAddressPool routed {addresses=[198.51.100.0/28]} from IPAddressPool metallb-system/routed",
                                "create Community aliases {communities=[{name=no-export, value=65535:65281}]} from Community metallb-system/aliases",
                                "create BFDProfile fast {receiveInterval=300} from BFDProfile metallb-system/fast",
                                "create BGPPeer tor {myASN=64512, peerASN=64500, peerAddress=10.0.0.254, bfdProfile=fast} from BGPPeer metallb-system/tor",
                                "create BGPAdvertisement routed {communities=[no-export], ipAddressPools=[routed]} from BGPAdvertisement metallb-system/routed",
                                "delete: kubectl delete bfdprofiles.metallb.io -n metallb-system fast",
                                "delete: kubectl delete bgpadvertisements.metallb.io -n metallb-system routed",
                                "delete: kubectl delete bgppeers.metallb.io -n metallb-system tor",
                                "delete: kubectl delete communities.metallb.io -n metallb-system aliases",
                                "delete: kubectl delete ipaddresspools.metallb.io -n metallb-system routed")),
                argumentSet(
                        "a BGPPeer's passwordSecret: the copy names the Secret in lbk8s's namespace, which the user creates",
                        Set.of(),
                        found(
                                Map.of(
                                        ConfigOrigin.Kind.BGPPeer,
                                        List.of(object(
                                                "metallb-system",
                                                "tor",
                                                peer(
                                                        "10.0.0.254",
                                                        Map.of(
                                                                "passwordSecret",
                                                                Map.of(
                                                                        "name",
                                                                        "tor-md5",
                                                                        "namespace",
                                                                        "metallb-system")))))),
                                List.of()),
                        List.of(
                                "create BGPPeer tor {myASN=64512, peerASN=64500, peerAddress=10.0.0.254, passwordSecret={name=tor-md5}} from BGPPeer metallb-system/tor",
                                "left out: BGPPeer metallb-system/tor: its passwordSecret \"tor-md5\" is a Secret in metallb-system, which lbk8s migrate does not copy: create Secret \"tor-md5\" in lbk8s-system with the same password (key \"password\")",
                                "delete: kubectl delete bgppeers.metallb.io -n metallb-system tor")),
                argumentSet(
                        "--from: a BGPAdvertisement whose Community stays behind: lbk8s would reject the result",
                        Set.of("team-a"),
                        found(
                                Map.of(
                                        ConfigOrigin.Kind.IPAddressPool,
                                        List.of(pool(TARGET, "default", "198.51.100.0/28")),
                                        ConfigOrigin.Kind.Community,
                                        List.of(object(
                                                "team-b",
                                                "aliases",
                                                Map.of(
                                                        "communities",
                                                        List.of(new TreeMap<>(Map.of(
                                                                "name", "no-export", "value", "65535:65281")))))),
                                        ConfigOrigin.Kind.BGPAdvertisement,
                                        List.of(object(
                                                "team-a", "routed", Map.of("communities", List.of("no-export"))))),
                                List.of()),
                        List.of("refused: lbk8s would reject the result: ERROR BGPAdvertisement lbk8s-system/routed: "
                                + "communities[0] \"no-export\": neither a community nor an alias a Community "
                                + "object defines: a standard community is written 65535:65282, a large one "
                                + "large:1:2:3")),
                argumentSet(
                        "lbk8s's own objects are not migrated",
                        Set.of(),
                        found(List.of(pool(TARGET, "default", "10.0.0.0/28")), List.of(l2(TARGET, "default"))),
                        List.of()));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void plansWhatMigrateDoes(Set<String> from, MigrationPlan.Found found, List<String> expected) {
        MigrationPlan plan = MigrationPlan.of(TARGET, from, found);

        List<String> lines = new ArrayList<>();
        plan.create()
                .forEach(m -> lines.add("create " + m.kind() + " " + m.name()
                        + (m.labels().isEmpty() ? "" : " " + m.labels()) + " " + m.spec() + " from " + m.from()));
        plan.unchanged().forEach(m -> lines.add("unchanged " + m.kind() + " " + m.name()));
        plan.refusals().forEach(r -> lines.add("refused: " + r));
        plan.leftOut().forEach(l -> lines.add("left out: " + l));
        plan.deleteCommands().forEach(c -> lines.add("delete: " + c));
        assertThat(lines).isEqualTo(expected);
        assertThat(plan.nothingToDo()).isEqualTo(expected.isEmpty());
    }
}

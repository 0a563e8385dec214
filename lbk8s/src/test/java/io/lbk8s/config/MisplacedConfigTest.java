package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.config.MisplacedConfig.Found;
import io.lbk8s.config.MisplacedConfig.Kind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven: the objects in a cluster → what the controller's "no address pool" Event says about them. */
class MisplacedConfigTest {
    static final String OWN = "lbk8s-system";
    static final String NO_POOLS = "no address pool is configured";

    static Found pool(String namespace, String name) {
        return new Found(Kind.IPAddressPool, namespace, name);
    }

    static Found l2(String namespace, String name) {
        return new Found(Kind.L2Advertisement, namespace, name);
    }

    static Found of(Kind kind, String namespace, String name) {
        return new Found(kind, namespace, name);
    }

    static Found legacy(String namespace, String name) {
        return new Found(Kind.LegacyConfigMap, namespace, name);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                argumentSet(
                        "nothing anywhere: where lbk8s reads",
                        List.of(),
                        "no address pool is configured in namespace lbk8s-system"),
                argumentSet(
                        "only lbk8s's own objects are not misplaced",
                        List.of(pool(OWN, "a"), l2(OWN, "a")),
                        "no address pool is configured in namespace lbk8s-system"),
                argumentSet(
                        "MetalLB's namespace and its legacy ConfigMap",
                        List.of(
                                pool("metallb-system", "b"),
                                pool("metallb-system", "a"),
                                l2("metallb-system", "all"),
                                legacy("metallb-system", "config"),
                                l2(OWN, "default")),
                        "no address pool is configured in namespace lbk8s-system; found 2 IPAddressPools and "
                                + "1 L2Advertisement in metallb-system and MetalLB's legacy ConfigMap metallb-system/config, "
                                + "which lbk8s does not read: run \"lbk8s migrate -n lbk8s-system --dry-run\""),
                argumentSet(
                        "three namespaces, sorted",
                        List.of(l2("team-b", "x"), pool("team-a", "x"), pool("metallb-system", "x")),
                        "no address pool is configured in namespace lbk8s-system; found 1 IPAddressPool in metallb-system, "
                                + "1 IPAddressPool in team-a and 1 L2Advertisement in team-b, which lbk8s does not read: "
                                + "run \"lbk8s migrate -n lbk8s-system --dry-run\""),
                argumentSet(
                        "a legacy ConfigMap is never read, even in lbk8s's namespace",
                        List.of(legacy(OWN, "config"), legacy("metallb-system", "config")),
                        "no address pool is configured in namespace lbk8s-system; found MetalLB's legacy ConfigMap "
                                + "lbk8s-system/config, metallb-system/config, which lbk8s does not read: "
                                + "run \"lbk8s migrate -n lbk8s-system --dry-run\""),
                argumentSet(
                        "MetalLB's BGP objects, each kind counted",
                        List.of(
                                pool("metallb-system", "a"),
                                of(Kind.BGPPeer, "metallb-system", "tor-1"),
                                of(Kind.BGPPeer, "metallb-system", "tor-2"),
                                of(Kind.BGPAdvertisement, "metallb-system", "all"),
                                of(Kind.Community, "metallb-system", "aliases"),
                                of(Kind.BFDProfile, "metallb-system", "fast"),
                                of(Kind.BGPPeer, OWN, "mine")),
                        "no address pool is configured in namespace lbk8s-system; found 1 IPAddressPool, 2 BGPPeers, "
                                + "1 BGPAdvertisement, 1 Community and 1 BFDProfile in metallb-system, which lbk8s does "
                                + "not read: run \"lbk8s migrate -n lbk8s-system --dry-run\""),
                argumentSet(
                        "the same object listed twice counts once",
                        List.of(pool("metallb-system", "a"), pool("metallb-system", "a")),
                        "no address pool is configured in namespace lbk8s-system; found 1 IPAddressPool in metallb-system, "
                                + "which lbk8s does not read: run \"lbk8s migrate -n lbk8s-system --dry-run\""));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theEventSaysWhatIsWhere(List<Found> inCluster, String message) {
        assertThat(MisplacedConfig.noPools(NO_POOLS, OWN, MisplacedConfig.misplaced(OWN, inCluster)))
                .isEqualTo(message);
    }

    static Stream<Arguments> configMaps() {
        Map<String, String> noData = new HashMap<>();
        noData.put("other", "x");
        return Stream.of(
                argumentSet(
                        "MetalLB's layer-2 example",
                        Map.of("config", "address-pools:\n- name: default\n  protocol: layer2\n"),
                        true),
                argumentSet(
                        "pools after peers",
                        Map.of("config", "peers:\n- peer-address: 10.0.0.1\naddress-pools: []\n"),
                        true),
                argumentSet(
                        "an app's own ConfigMap named config",
                        Map.of("config", "server:\n  address-pools: 3\n"),
                        false),
                argumentSet("no config key", noData, false),
                argumentSet("no data at all", null, false));
    }

    @ParameterizedTest
    @MethodSource("configMaps")
    void onlyMetalLbsLegacyFormatIsTakenForItsConfigMap(Map<String, String> data, boolean legacy) {
        assertThat(MisplacedConfig.isLegacyConfigMap(data)).isEqualTo(legacy);
    }

    static Stream<Arguments> notRead() {
        return Stream.of(
                argumentSet(
                        "a pool",
                        pool("metallb-system", "a"),
                        "lbk8s reads IPAddressPools only in namespace lbk8s-system, so it does not use this one: run "
                                + "\"lbk8s migrate -n lbk8s-system --dry-run\" to see it moved into lbk8s-system"),
                argumentSet(
                        "a BGPPeer",
                        of(Kind.BGPPeer, "metallb-system", "tor"),
                        "lbk8s reads BGPPeers only in namespace lbk8s-system, so it does not use this one: run "
                                + "\"lbk8s migrate -n lbk8s-system --dry-run\" to see it moved into lbk8s-system"),
                argumentSet(
                        "a Community",
                        of(Kind.Community, "metallb-system", "aliases"),
                        "lbk8s reads Communities only in namespace lbk8s-system, so it does not use this one: run "
                                + "\"lbk8s migrate -n lbk8s-system --dry-run\" to see it moved into lbk8s-system"));
    }

    @ParameterizedTest
    @MethodSource("notRead")
    void eachMisplacedObjectIsToldWhereLbk8sReads(Found found, String warning) {
        assertThat(MisplacedConfig.notRead(OWN, found)).isEqualTo(warning);
    }
}

package io.lbk8s.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.config.ConfigParser;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.config.ConfigSources;
import io.lbk8s.config.ConfigSources.RawObject;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven: the text of MetalLB's legacy ConfigMap → the objects made of it (kind name spec, as
 * {@link Manifest#toString} would be too long) and every part left out, with its sentence. Every result is a
 * configuration lbk8s accepts.
 */
class LegacyConfigTest {
    static final String FROM = "ConfigMap metallb-system/config";

    static Stream<Arguments> cases() {
        return Stream.of(
                argumentSet(
                        "MetalLB's layer-2 example",
                        """
                        address-pools:
                        - name: default
                          protocol: layer2
                          addresses: [192.168.1.240-192.168.1.250]
                          auto-assign: true
                          avoid-buggy-ips: false
                        """,
                        List.of(
                                "IPAddressPool default {addresses=[192.168.1.240-192.168.1.250], autoAssign=true, avoidBuggyIPs=false}",
                                "L2Advertisement default {ipAddressPools=[default]}"),
                        List.of()),
                argumentSet(
                        "two pools, defaults left to the CRD, cidr as MetalLB before 0.5 called it",
                        """
                        address-pools:
                        - {name: lan, protocol: layer2, addresses: [10.0.0.0/28, 10.0.1.1-10.0.1.9], avoid-buggy-ips: true}
                        - {name: old, protocol: layer2, cidr: [10.0.2.0/29], auto-assign: false}
                        """,
                        List.of(
                                "IPAddressPool lan {addresses=[10.0.0.0/28, 10.0.1.1-10.0.1.9], avoidBuggyIPs=true}",
                                "L2Advertisement lan {ipAddressPools=[lan]}",
                                "IPAddressPool old {addresses=[10.0.2.0/29], autoAssign=false}",
                                "L2Advertisement old {ipAddressPools=[old]}"),
                        List.of()),
                argumentSet(
                        "BGP is left out, with a sentence for each part",
                        """
                        peers:
                        - {peer-address: 10.0.0.1, peer-asn: 64501, my-asn: 64500}
                        bgp-communities: {no-advertise: "65535:65282"}
                        address-pools:
                        - {name: routed, protocol: bgp, addresses: [198.51.100.0/24], bgp-advertisements: [{aggregation-length: 32}]}
                        - {name: lan, protocol: layer2, addresses: [10.0.0.0/28]}
                        """,
                        List.of(
                                "IPAddressPool lan {addresses=[10.0.0.0/28]}",
                                "L2Advertisement lan {ipAddressPools=[lan]}"),
                        List.of(
                                FROM
                                        + ": peers left out: lbk8s migrate does not convert legacy BGP settings; write them as BGPPeer, Community and BFDProfile objects",
                                FROM
                                        + ": bgp-communities left out: lbk8s migrate does not convert legacy BGP settings; write them as BGPPeer, Community and BFDProfile objects",
                                FROM
                                        + ": pool \"routed\" uses protocol \"bgp\", not layer2: left out, lbk8s migrate converts layer2 pools only "
                                        + "(write an IPAddressPool and a BGPAdvertisement for it)")),
                argumentSet(
                        "what cannot be read is said, not guessed",
                        """
                        address-pools:
                        - {name: a, addresses: [10.0.0.0/28]}
                        - {name: b, protocol: layer2}
                        - {protocol: layer2, addresses: [10.0.1.0/28]}
                        - {name: c, protocol: layer2, addresses: [10.0.3.0/28], auto-assign: "no", colour: blue}
                        bgp-advertisements: []
                        """,
                        List.of("IPAddressPool c {addresses=[10.0.3.0/28]}", "L2Advertisement c {ipAddressPools=[c]}"),
                        List.of(
                                FROM
                                        + ": pool \"a\" has no protocol, not layer2: left out, lbk8s migrate converts layer2 pools only "
                                        + "(write an IPAddressPool and a BGPAdvertisement for it)",
                                FROM + ": pool \"b\" has no list of addresses: left out",
                                FROM + ": an address pool without a name left out",
                                FROM + ": pool \"c\": field \"colour\" left out: not a field of MetalLB's legacy pools",
                                FROM + ": pool \"c\": auto-assign is not true or false: left out, the default applies",
                                FROM
                                        + ": \"bgp-advertisements\" left out: not a field of MetalLB's legacy configuration")),
                argumentSet(
                        "not YAML",
                        "address-pools: [",
                        List.of(),
                        List.of(FROM + ": its config is not valid YAML (line 1), "
                                + "nothing converted: while parsing a flow node")),
                argumentSet(
                        "a list, not a mapping",
                        "- name: a\n",
                        List.of(),
                        List.of(FROM + ": its config is not a YAML mapping, nothing converted")),
                argumentSet(
                        "an empty ConfigMap",
                        "",
                        List.of(),
                        List.of(FROM + ": its config is empty, nothing converted")));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void convertsLayer2PoolsAndSaysWhatItLeavesOut(String config, List<String> objects, List<String> leftOut) {
        LegacyConfig.Conversion conversion = LegacyConfig.convert(FROM, config);

        assertThat(conversion.manifests())
                .extracting(m -> m.kind() + " " + m.name() + " " + m.spec())
                .isEqualTo(objects);
        assertThat(conversion.manifests()).allMatch(m -> m.from().equals(FROM));
        assertThat(conversion.leftOut()).isEqualTo(leftOut);
        List<RawObject> pools = conversion.manifests().stream()
                .filter(m -> m.kind().name().equals("IPAddressPool"))
                .map(m -> new RawObject("lbk8s-system", m.name(), m.labels(), m.spec()))
                .toList();
        List<RawObject> l2 = conversion.manifests().stream()
                .filter(m -> m.kind().name().equals("L2Advertisement"))
                .map(m -> new RawObject("lbk8s-system", m.name(), m.labels(), m.spec()))
                .toList();
        ConfigResult parsed = ConfigParser.parse(new ConfigSources(pools, l2, List.of()));
        assertThat(parsed.problems()).as("lbk8s accepts what migrate makes").isEmpty();
        assertThat(parsed.config().pools()).hasSize(pools.size());
    }
}

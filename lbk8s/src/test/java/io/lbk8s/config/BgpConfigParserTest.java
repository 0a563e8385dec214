package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bfd.BfdSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven, like {@link ConfigParserTest}: MetalLB's BGP objects (BGPPeer, BGPAdvertisement, Community,
 * BFDProfile) → what the speaker gets from them, one line per object, and the exact problems a user sees in the
 * Events and {@code lbk8s status}, in order.
 */
class BgpConfigParserTest {

    static String peer(String name, String spec) {
        return "---\napiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata: {name: " + name
                + ", namespace: lbk8s-system}\nspec: " + spec + "\n";
    }

    static String peerCreated(String name, String createdAt, String spec) {
        return "---\napiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata: {name: " + name
                + ", namespace: lbk8s-system, creationTimestamp: '" + createdAt + "'}\nspec: " + spec + "\n";
    }

    static String advertisement(String name, String spec) {
        return v1beta1("BGPAdvertisement", name, spec);
    }

    static String advertisementCreated(String name, String createdAt, String spec) {
        return "---\napiVersion: metallb.io/v1beta1\nkind: BGPAdvertisement\nmetadata: {name: " + name
                + ", namespace: lbk8s-system, creationTimestamp: '" + createdAt + "'}\nspec: " + spec + "\n";
    }

    static String community(String name, String spec) {
        return v1beta1("Community", name, spec);
    }

    static String bfd(String name, String spec) {
        return v1beta1("BFDProfile", name, spec);
    }

    static String pool(String name, String spec) {
        return v1beta1("IPAddressPool", name, spec);
    }

    static String v1beta1(String kind, String name, String spec) {
        return "---\napiVersion: metallb.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name
                + ", namespace: lbk8s-system}\nspec: " + spec + "\n";
    }

    static ConfigSources manifests(String... documents) {
        return Fixtures.fromYaml(String.join("", documents));
    }

    static final String ROUTER = "{myASN: 64500, peerASN: 64501, peerAddress: 192.168.1.1}";
    static final String INTERNAL = "{myASN: 64500, peerASN: 64500, peerAddress: 192.168.1.2}";
    static final String INTERNAL_PEER_LINE =
            "peer ibgp: AS 64500 to AS 64500 at 192.168.1.2 port 179; hold 90s, keepalive a third, connect 120s";

    static Arguments row(String name, ConfigSources sources, List<String> objects, String... problems) {
        return argumentSet(name, sources, objects, List.of(problems));
    }

    static List<String> objects(String... lines) {
        return List.of(lines);
    }

    static final List<String> NOTHING = List.of();

    static Stream<Arguments> cases() {
        return Stream.of(
                // --- BGPPeer --------------------------------------------------------------------------------------
                row(
                        "the smallest peer: MetalLB's defaults",
                        manifests(peer("router", ROUTER)),
                        objects(
                                "peer router: AS 64500 to AS 64501 at 192.168.1.1 port 179; hold 90s, keepalive a third, connect 120s")),
                row(
                        "every field",
                        manifests(bfd("fast", "{receiveInterval: 100, transmitInterval: 100}"), peer("router", """
                                        {myASN: 4200000000, peerASN: 4200000001, peerAddress: 'fd00::1', sourceAddress: 'fd00::10',
                                         peerPort: 1179, holdTime: 9s, keepaliveTime: 3s, connectTime: 5s, routerID: 10.0.0.10,
                                         nodeSelectors: [{matchLabels: {rack: a}}], passwordSecret: {name: bgp-auth, namespace: lbk8s-system},
                                         bfdProfile: fast, ebgpMultiHop: true, enableGracefulRestart: true, dualStackAddressFamily: true}""")),
                        objects(
                                "bfd fast: receive 100ms, transmit 100ms, multiplier 3, minimum TTL 254",
                                "peer router: AS 4200000000 to AS 4200000001 at fd00::1 port 1179; hold 9s, keepalive 3s, connect 5s;"
                                        + " source fd00::10; router ID 10.0.0.10; password from Secret bgp-auth; BFD fast;"
                                        + " eBGP multi-hop; graceful restart; both address families; 1 node selector(s)")),
                row(
                        "dynamicASN instead of peerASN; a password in the object; only a keepalive time: hold is 3 times it",
                        manifests(
                                peer(
                                        "r",
                                        "{myASN: 64500, dynamicASN: external, peerAddress: 10.0.0.1, password: s3cret, keepaliveTime: 20s}")),
                        objects(
                                "peer r: AS 64500 to any external AS at 10.0.0.1 port 179; hold 60s, keepalive 20s, connect 120s; password")),
                row(
                        "hold time 0: no keepalives, as RFC 4271 allows",
                        manifests(peer("r", "{myASN: 64500, peerASN: 64500, peerAddress: 10.0.0.1, holdTime: '0'}")),
                        objects(
                                "peer r: AS 64500 to AS 64500 at 10.0.0.1 port 179; hold 0s, keepalive a third, connect 120s")),
                row(
                        "nothing but a name",
                        manifests(peer("r", "null")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: spec is required: expected a map with at least myASN, peerASN (or dynamicASN) and peerAddress"),
                row(
                        "required fields missing: each said",
                        manifests(peer("r", "{peerPort: 179}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: myASN is required: the AS number of the cluster's side of the session (1-4294967295)",
                        "ERROR BGPPeer lbk8s-system/r: peerASN or dynamicASN is required: peerASN is the peer's AS number; dynamicASN, internal or external, accepts the AS the peer announces",
                        "ERROR BGPPeer lbk8s-system/r: peerAddress is required: the IP address of the router to peer with"),
                row(
                        "peerASN and dynamicASN both: exactly one",
                        manifests(peer(
                                "r", "{myASN: 64500, peerASN: 64501, dynamicASN: internal, peerAddress: 10.0.0.1}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: peerASN and dynamicASN are both set: give exactly one, peerASN (the peer's AS number) or dynamicASN (internal or external: accept the AS the peer announces)"),
                row(
                        "every value wrong, every problem reported",
                        manifests(peer("r", """
                                {myASN: 0, peerASN: 4294967296, peerAddress: 10.0.0.300, sourceAddress: nope, peerPort: 0,
                                 routerID: 'fd00::1', holdTime: 2s, keepaliveTime: soon, connectTime: 1500ms, dynamicASN: sideways,
                                 ebgpMultiHop: yes, nodeSelectors: [{matchLabels: {'bad key': x}}]}""")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: myASN: 0 is out of range; an AS number is 1-4294967295",
                        "ERROR BGPPeer lbk8s-system/r: peerASN: 4294967296 is out of range; an AS number is 1-4294967295",
                        "ERROR BGPPeer lbk8s-system/r: dynamicASN: \"sideways\" is neither \"internal\" (the peer is in myASN) nor \"external\" (it is not)",
                        "ERROR BGPPeer lbk8s-system/r: peerASN and dynamicASN are both set: give exactly one, peerASN (the peer's AS number) or dynamicASN (internal or external: accept the AS the peer announces)",
                        "ERROR BGPPeer lbk8s-system/r: peerAddress: \"10.0.0.300\" is not an IP address",
                        "ERROR BGPPeer lbk8s-system/r: sourceAddress: \"nope\" is not an IP address",
                        "ERROR BGPPeer lbk8s-system/r: routerID: fd00::1 is not an IPv4 address: a BGP identifier is 4 bytes, written as an IPv4 address",
                        "ERROR BGPPeer lbk8s-system/r: peerPort: 0 is out of range; a port is 1-65535",
                        "ERROR BGPPeer lbk8s-system/r: keepaliveTime: \"soon\" is not a duration like 90s, 3m or 500ms",
                        "ERROR BGPPeer lbk8s-system/r: holdTime: 2s is too short: a hold time is 0 (no keepalives) or at least 3s",
                        "ERROR BGPPeer lbk8s-system/r: connectTime: 1500ms is not a whole number of seconds from 1s to 65535s",
                        "ERROR BGPPeer lbk8s-system/r: nodeSelectors[0].matchLabels: \"bad key\" is not a valid label key: the name must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
                        "ERROR BGPPeer lbk8s-system/r: ebgpMultiHop: expected a boolean (true or false), got a string (\"yes\")"),
                row(
                        "keepalive longer than hold; source and peer of different families",
                        manifests(
                                peer(
                                        "r",
                                        "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, sourceAddress: 'fd00::1', holdTime: 30s, keepaliveTime: 1m}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: sourceAddress: fd00::1 is IPv6 but peerAddress 10.0.0.1 is IPv4: a session has one address family",
                        "ERROR BGPPeer lbk8s-system/r: keepaliveTime: 1m is longer than holdTime 30s: the peer would drop the session between two keepalives"),
                row(
                        "password and passwordSecret both; a Secret in another namespace; a line break",
                        manifests(
                                peer(
                                        "r",
                                        "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, password: \"a\\nb\", passwordSecret: {name: s, namespace: metallb-system}}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: password: a password must not contain a line break",
                        "ERROR BGPPeer lbk8s-system/r: passwordSecret.namespace: lbk8s reads password Secrets only in its own namespace \"lbk8s-system\", not \"metallb-system\"",
                        "ERROR BGPPeer lbk8s-system/r: password and passwordSecret are both set: give the password in one place only"),
                row(
                        "a password longer than TCP MD5 takes",
                        manifests(peer(
                                "r",
                                "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, password: " + "x".repeat(81)
                                        + "}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: password: longer than 80 bytes, the longest TCP MD5 key Linux accepts"),
                row(
                        "bfdProfile that does not exist; ebgpMultiHop on an iBGP peer",
                        manifests(
                                peer(
                                        "r",
                                        "{myASN: 64500, peerASN: 64500, peerAddress: 10.0.0.1, bfdProfile: fast, ebgpMultiHop: true}")),
                        NOTHING,
                        "ERROR BGPPeer lbk8s-system/r: bfdProfile: BFDProfile \"fast\" does not exist",
                        "ERROR BGPPeer lbk8s-system/r: ebgpMultiHop is for eBGP peers, but this peer is in the cluster's own AS (iBGP): remove it"),
                row(
                        "FRR-only fields: interface and vrf refused, disableMP warned, unknown fields warned",
                        manifests(
                                peer(
                                        "r",
                                        "{myASN: 64500, peerASN: 64501, interface: eth1, vrf: red, disableMP: true, toAdvertise: {}}")),
                        NOTHING,
                        "WARNING BGPPeer lbk8s-system/r: spec: unknown field \"toAdvertise\" is ignored",
                        "ERROR BGPPeer lbk8s-system/r: interface (unnumbered BGP) is not supported by lbk8s: set peerAddress to the router's address instead",
                        "ERROR BGPPeer lbk8s-system/r: vrf is not supported by lbk8s: sessions are opened from the node's default routing table; remove it (ignoring it would peer from the wrong VRF)",
                        "WARNING BGPPeer lbk8s-system/r: disableMP is deprecated and has no effect in lbk8s: a session carries only its own address family unless dualStackAddressFamily is set"),
                row(
                        "two peers for one router from the same nodes: the later one is refused",
                        manifests(
                                peerCreated("b", "2026-12-01T10:00:00Z", ROUTER),
                                peerCreated("a", "2026-12-01T10:00:01Z", ROUTER)),
                        objects(
                                "peer b: AS 64500 to AS 64501 at 192.168.1.1 port 179; hold 90s, keepalive a third, connect 120s"),
                        "ERROR BGPPeer lbk8s-system/a: peerAddress: BGPPeer \"b\" already peers with 192.168.1.1 port 179 from the same nodes; a node holds one session with a router: give the two peers different nodeSelectors, or remove one"),
                row(
                        "one router address per rack: the same address from different nodes is fine",
                        manifests(
                                peer(
                                        "rack-a",
                                        "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, nodeSelectors: [{matchLabels: {rack: a}}]}"),
                                peer(
                                        "rack-b",
                                        "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, nodeSelectors: [{matchLabels: {rack: b}}]}")),
                        objects(
                                "peer rack-a: AS 64500 to AS 64501 at 10.0.0.1 port 179; hold 90s, keepalive a third, connect 120s; 1 node selector(s)",
                                "peer rack-b: AS 64500 to AS 64501 at 10.0.0.1 port 179; hold 90s, keepalive a third, connect 120s; 1 node selector(s)")),

                // --- BGPAdvertisement -----------------------------------------------------------------------------
                row(
                        "an empty advertisement: every pool, /32 and /128, to every peer",
                        manifests(pool("p", "{addresses: [10.0.0.0/24]}"), advertisement("all", "null")),
                        objects("advertisement all: every pool; /32, /128")),
                row(
                        "every field, a Community alias resolved",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24, 'fd00::/120'], }"),
                                peer("router", ROUTER),
                                community("names", "{communities: [{name: no-export, value: '65535:65281'}]}"),
                                advertisement("a", """
                                        {ipAddressPools: [p], ipAddressPoolSelectors: [{matchLabels: {bgp: 'yes'}}],
                                         nodeSelectors: [{matchLabels: {rack: a}}], peers: [router], aggregationLength: 24,
                                         aggregationLengthV6: 120, localPref: 100, communities: [no-export, '64500:1', 'large:64500:1:2']}""")),
                        objects(
                                "peer router: AS 64500 to AS 64501 at 192.168.1.1 port 179; hold 90s, keepalive a third, connect 120s",
                                "advertisement a: pools [p] and 1 selector(s); /24, /120; local preference 100; communities [65535:65281, 64500:1, large:64500:1:2]; peers [router]; 1 node selector(s)"),
                        "WARNING BGPAdvertisement lbk8s-system/a: localPref: 100 has no effect: LOCAL_PREF is sent to iBGP peers only (peerASN equal to myASN), and every BGPPeer this advertises to is eBGP (\"router\")"),
                row(
                        "names that do not exist are warnings; duplicates warned once",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                advertisement(
                                        "a",
                                        "{ipAddressPools: [p, nope, p], peers: [ghost], communities: ['1:1', '1:1']}")),
                        objects("advertisement a: pools [p, nope, p]; /32, /128; communities [1:1]; peers [ghost]"),
                        "WARNING BGPAdvertisement lbk8s-system/a: ipAddressPools[1]: pool \"nope\" does not exist",
                        "WARNING BGPAdvertisement lbk8s-system/a: ipAddressPools[2]: pool \"p\" is listed twice",
                        "WARNING BGPAdvertisement lbk8s-system/a: peers[0]: BGPPeer \"ghost\" does not exist, so nothing is advertised to it until it does",
                        "WARNING BGPAdvertisement lbk8s-system/a: communities[1] \"1:1\": community 1:1 is listed twice"),
                row(
                        "communities: misspelled alias, out-of-range values",
                        manifests(advertisement(
                                "a", "{communities: [no-exprot, '65536:1', 'large:1:2:4294967296', '1:2:3']}")),
                        NOTHING,
                        "ERROR BGPAdvertisement lbk8s-system/a: communities[0] \"no-exprot\": neither a community nor an alias a Community object defines: a standard community is written 65535:65282, a large one large:1:2:3",
                        "ERROR BGPAdvertisement lbk8s-system/a: communities[1] \"65536:1\": 65536 is out of range: each half of a standard community is 0-65535",
                        "ERROR BGPAdvertisement lbk8s-system/a: communities[2] \"large:1:2:4294967296\": 4294967296 is out of range: each part of a large community is 0-4294967295",
                        "ERROR BGPAdvertisement lbk8s-system/a: communities[3] \"1:2:3\": neither a community nor an alias a Community object defines: a standard community is written 65535:65282, a large one large:1:2:3"),
                row(
                        "aggregation lengths out of range; localPref out of range; serviceSelectors refused",
                        manifests(
                                advertisement(
                                        "a",
                                        "{aggregationLength: 33, aggregationLengthV6: -1, localPref: 4294967296, serviceSelectors: [{matchLabels: {a: b}}]}")),
                        NOTHING,
                        "ERROR BGPAdvertisement lbk8s-system/a: aggregationLength: 33 is out of range; a prefix length here is 1-32",
                        "ERROR BGPAdvertisement lbk8s-system/a: aggregationLengthV6: -1 is out of range; a prefix length here is 0-128",
                        "ERROR BGPAdvertisement lbk8s-system/a: localPref: 4294967296 is out of range; a local preference is 0-4294967295",
                        "ERROR BGPAdvertisement lbk8s-system/a: serviceSelectors is not supported by lbk8s: remove it (ignoring it would advertise every Service of the selected pools)"),
                row(
                        "MetalLB's rule: an aggregate shorter than a pool's block would cover addresses outside the pool",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/25, 10.0.1.0-10.0.1.255, 'fd00::/120']}"),
                                pool("other", "{addresses: [10.1.0.0/16]}"),
                                advertisement(
                                        "a", "{ipAddressPools: [p], aggregationLength: 24, aggregationLengthV6: 64}")),
                        NOTHING,
                        "ERROR BGPAdvertisement lbk8s-system/a: aggregationLength: /24 is shorter than /25 of pool \"p\" \"10.0.0.0/25\": the aggregate route would cover addresses outside the pool; use 25 or more",
                        "ERROR BGPAdvertisement lbk8s-system/a: aggregationLengthV6: /64 is shorter than /120 of pool \"p\" \"fd00::/120\": the aggregate route would cover addresses outside the pool; use 120 or more"),
                row(
                        "a range's widest block decides: 10.0.0.1-10.0.0.255 needs at least /25",
                        manifests(
                                pool("p", "{addresses: [10.0.0.1-10.0.0.255]}"),
                                advertisement("ok", "{aggregationLength: 25}"),
                                advertisement("short", "{aggregationLength: 24}")),
                        objects("advertisement ok: every pool; /25, /128"),
                        "ERROR BGPAdvertisement lbk8s-system/short: aggregationLength: /24 is shorter than /25 of pool \"p\" \"10.0.0.1-10.0.0.255\": the aggregate route would cover addresses outside the pool; use 25 or more"),

                // --- localPref: one route, two local preferences -------------------------------------------------
                row(
                        "two advertisements of a pool to an iBGP peer from every node, localPrefs differ: the later is refused",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                peer("ibgp", INTERNAL),
                                advertisement("a", "{localPref: 100}"),
                                advertisement("b", "{localPref: 200}")),
                        objects(INTERNAL_PEER_LINE, "advertisement a: every pool; /32, /128; local preference 100"),
                        "ERROR BGPAdvertisement lbk8s-system/b: localPref: 200 differs from the 100 of BGPAdvertisement \"a\", which also advertises pool \"p\" to iBGP peer \"ibgp\" from the same nodes with the same aggregation length: the router would get one route with two local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or aggregationLength"),
                row(
                        "an unset localPref is sent as 100: it agrees with 100 and clashes with 200",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                peer("ibgp", INTERNAL),
                                advertisement("a", "null"),
                                advertisement("b", "{localPref: 100}"),
                                advertisement("c", "{localPref: 200}")),
                        objects(
                                INTERNAL_PEER_LINE,
                                "advertisement a: every pool; /32, /128",
                                "advertisement b: every pool; /32, /128; local preference 100"),
                        "ERROR BGPAdvertisement lbk8s-system/c: localPref: 200 differs from the unset (sent as 100) of BGPAdvertisement \"a\", which also advertises pool \"p\" to iBGP peer \"ibgp\" from the same nodes with the same aggregation length: the router would get one route with two local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or aggregationLength"),
                row(
                        "the advertisement created first keeps the pool; the same nodeSelectors overlap for certain",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                peer("ibgp", INTERNAL),
                                advertisementCreated(
                                        "a",
                                        "2026-12-04T10:00:00Z",
                                        "{localPref: 100, nodeSelectors: [{matchLabels: {rack: a}}]}"),
                                advertisementCreated(
                                        "b",
                                        "2026-12-04T09:00:00Z",
                                        "{localPref: 200, nodeSelectors: [{matchLabels: {rack: a}}]}")),
                        objects(
                                INTERNAL_PEER_LINE,
                                "advertisement b: every pool; /32, /128; local preference 200; 1 node selector(s)"),
                        "ERROR BGPAdvertisement lbk8s-system/a: localPref: 100 differs from the 200 of BGPAdvertisement \"b\", which also advertises pool \"p\" to iBGP peer \"ibgp\" from the same nodes with the same aggregation length: the router would get one route with two local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or aggregationLength"),
                row(
                        "no clash: eBGP peers never get LOCAL_PREF (a warning says it has no effect)",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                peer("router", ROUTER),
                                advertisement("a", "{localPref: 100}"),
                                advertisement("b", "{localPref: 200}")),
                        objects(
                                "peer router: AS 64500 to AS 64501 at 192.168.1.1 port 179; hold 90s, keepalive a third, connect 120s",
                                "advertisement a: every pool; /32, /128; local preference 100",
                                "advertisement b: every pool; /32, /128; local preference 200"),
                        "WARNING BGPAdvertisement lbk8s-system/a: localPref: 100 has no effect: LOCAL_PREF is sent to iBGP peers only (peerASN equal to myASN), and every BGPPeer this advertises to is eBGP (\"router\")",
                        "WARNING BGPAdvertisement lbk8s-system/b: localPref: 200 has no effect: LOCAL_PREF is sent to iBGP peers only (peerASN equal to myASN), and every BGPPeer this advertises to is eBGP (\"router\")"),
                row(
                        "no clash: different aggregation lengths, peers or pools; but one to every node clashes with one to some",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                pool("q", "{addresses: [10.0.1.0/24]}"),
                                peer("ibgp", INTERNAL),
                                peer("ibgp-2", "{myASN: 64500, peerASN: 64500, peerAddress: 192.168.1.3}"),
                                advertisement("a", "{ipAddressPools: [p], peers: [ibgp], localPref: 100}"),
                                advertisement(
                                        "b",
                                        "{ipAddressPools: [p], peers: [ibgp], localPref: 200, aggregationLength: 24}"),
                                advertisement("c", "{ipAddressPools: [p], peers: [ibgp-2], localPref: 300}"),
                                advertisement("d", "{ipAddressPools: [q], localPref: 400}"),
                                advertisement(
                                        "e",
                                        "{ipAddressPools: [q], localPref: 500, nodeSelectors: [{matchLabels: {rack: a}}]}"),
                                advertisement(
                                        "f",
                                        "{ipAddressPools: [q], localPref: 600, nodeSelectors: [{matchLabels: {zone: x}}]}")),
                        objects(
                                INTERNAL_PEER_LINE,
                                "peer ibgp-2: AS 64500 to AS 64500 at 192.168.1.3 port 179; hold 90s, keepalive a third, connect 120s",
                                "advertisement a: pools [p]; /32, /128; local preference 100; peers [ibgp]",
                                "advertisement b: pools [p]; /24, /128; local preference 200; peers [ibgp]",
                                "advertisement c: pools [p]; /32, /128; local preference 300; peers [ibgp-2]",
                                "advertisement d: pools [q]; /32, /128; local preference 400"),
                        "ERROR BGPAdvertisement lbk8s-system/e: localPref: 500 differs from the 400 of BGPAdvertisement \"d\", which also advertises pool \"q\" to iBGP peer \"ibgp\" from the same nodes with the same aggregation length: the router would get one route with two local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or aggregationLength",
                        "ERROR BGPAdvertisement lbk8s-system/f: localPref: 600 differs from the 400 of BGPAdvertisement \"d\", which also advertises pool \"q\" to iBGP peer \"ibgp\" from the same nodes with the same aggregation length: the router would get one route with two local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or aggregationLength"),
                row(
                        "nodeSelectors that may not overlap: accepted; the speakers judge each node",
                        manifests(
                                pool("q", "{addresses: [10.0.1.0/24]}"),
                                peer("ibgp", INTERNAL),
                                advertisement("e", "{localPref: 500, nodeSelectors: [{matchLabels: {rack: a}}]}"),
                                advertisement("f", "{localPref: 600, nodeSelectors: [{matchLabels: {zone: x}}]}")),
                        objects(
                                INTERNAL_PEER_LINE,
                                "advertisement e: every pool; /32, /128; local preference 500; 1 node selector(s)",
                                "advertisement f: every pool; /32, /128; local preference 600; 1 node selector(s)")),

                // --- Community ------------------------------------------------------------------------------------
                row(
                        "an alias defined twice: the later definition is the error, the first one is used",
                        manifests(
                                community("a", "{communities: [{name: x, value: '1:1'}]}"),
                                community("b", """
                                        {communities: [{name: x, value: '1:3'}, {name: y, value: '1:1'}, {name: y, value: '1:2'},
                                                       {value: '1:4'}, {name: z, value: nope}, 7]}"""),
                                advertisement("adv", "{communities: [x]}")),
                        objects("advertisement adv: every pool; /32, /128; communities [1:1]"),
                        "ERROR Community lbk8s-system/b: communities[0].name: alias \"x\" is already defined by Community lbk8s-system/a",
                        "ERROR Community lbk8s-system/b: communities[2].name: alias \"y\" is already defined by communities[1]",
                        "ERROR Community lbk8s-system/b: communities[3].name is required: the alias BGPAdvertisements write instead of the value",
                        "ERROR Community lbk8s-system/b: communities[4].value \"nope\": not a community: a standard community is written 65535:65282, a large one large:1:2:3",
                        "ERROR Community lbk8s-system/b: communities[5]: expected {name, value}, got a number (7)"),
                row(
                        "an advertisement naming an alias of a refused Community is refused too",
                        manifests(
                                community(
                                        "bad", "{communities: [{name: x, value: '1:1'}, {name: w, value: '70000:1'}]}"),
                                advertisement("adv", "{communities: [x]}")),
                        NOTHING,
                        "ERROR Community lbk8s-system/bad: communities[1].value \"70000:1\": 70000 is out of range: each half of a standard community is 0-65535",
                        "ERROR BGPAdvertisement lbk8s-system/adv: communities[0] \"x\": neither a community nor an alias a Community object defines: a standard community is written 65535:65282, a large one large:1:2:3"),

                // --- BFDProfile -----------------------------------------------------------------------------------
                row(
                        "BFDProfile defaults: 300 ms both ways, multiplier 3",
                        manifests(bfd("default", "null")),
                        objects("bfd default: receive 300ms, transmit 300ms, multiplier 3, minimum TTL 254")),
                row(
                        "BFDProfile every field; echo mode is warned",
                        manifests(
                                bfd(
                                        "p",
                                        "{receiveInterval: 50, transmitInterval: 60, detectMultiplier: 5, echoInterval: 20, echoMode: true, passiveMode: true, minimumTtl: 250}")),
                        objects("bfd p: receive 50ms, transmit 60ms, multiplier 5, minimum TTL 250; passive"),
                        "WARNING BFDProfile lbk8s-system/p: echoMode is not supported by lbk8s: BFD runs in asynchronous mode only, with control packets at receiveInterval and transmitInterval; echoInterval is not used"),
                row(
                        "BFDProfile out of range",
                        manifests(
                                bfd(
                                        "p",
                                        "{receiveInterval: 9, transmitInterval: 60001, detectMultiplier: 1, echoInterval: 5, minimumTtl: 255, bogus: 1}")),
                        NOTHING,
                        "WARNING BFDProfile lbk8s-system/p: spec: unknown field \"bogus\" is ignored",
                        "ERROR BFDProfile lbk8s-system/p: receiveInterval: 9 is out of range; an interval is 10-60000 milliseconds",
                        "ERROR BFDProfile lbk8s-system/p: transmitInterval: 60001 is out of range; an interval is 10-60000 milliseconds",
                        "ERROR BFDProfile lbk8s-system/p: detectMultiplier: 1 is out of range; a multiplier is 2-255",
                        "ERROR BFDProfile lbk8s-system/p: echoInterval: 5 is out of range; an interval is 10-60000 milliseconds",
                        "ERROR BFDProfile lbk8s-system/p: minimumTtl: 255 is out of range; a TTL is 1-254"));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void parses(ConfigSources sources, List<String> expectedObjects, List<String> expectedProblems) {
        ConfigResult result = ConfigParser.parse(sources);

        assertThat(result.problems()).map(ConfigProblem::toString).containsExactlyElementsOf(expectedProblems);
        assertThat(describe(result.config())).containsExactlyElementsOf(expectedObjects);
        boolean anyError = expectedProblems.stream().anyMatch(p -> p.startsWith("ERROR"));
        assertThat(result.valid()).isEqualTo(!anyError);

        // the same input, reordered, gives the same result
        assertThat(ConfigParser.parse(reversed(sources))).isEqualTo(result);
    }

    /** The BGP objects as the speaker gets them, one line each: profiles, peers, advertisements. */
    static List<String> describe(Config config) {
        List<String> lines = new ArrayList<>();
        for (BfdProfile profile : config.bfdProfiles()) {
            BfdSettings s = profile.settings();
            lines.add("bfd " + profile.name() + ": receive "
                    + s.receiveInterval().toMillis() + "ms, transmit "
                    + s.transmitInterval().toMillis() + "ms, multiplier " + s.detectMultiplier() + ", minimum TTL "
                    + s.minimumTtl() + (s.passive() ? "; passive" : ""));
        }
        for (BgpPeer peer : config.bgpPeers()) {
            StringBuilder line = new StringBuilder("peer " + peer.name() + ": AS " + peer.myAsn() + " to ");
            line.append(
                    peer.peerAsn().isPresent()
                            ? "AS " + peer.peerAsn().getAsLong()
                            : "any " + peer.dynamicAsn().orElseThrow().name().toLowerCase() + " AS");
            line.append(" at ").append(peer.peerAddress()).append(" port ").append(peer.peerPort());
            line.append("; hold ").append(seconds(peer.holdTime())).append(", keepalive ");
            line.append(peer.keepaliveTime().map(BgpConfigParserTest::seconds).orElse("a third"));
            line.append(", connect ").append(seconds(peer.connectTime()));
            peer.sourceAddress().ifPresent(a -> line.append("; source ").append(a));
            peer.routerId()
                    .map(IpAddress::toString)
                    .ifPresent(a -> line.append("; router ID ").append(a));
            peer.password().ifPresent(p -> line.append("; password"));
            peer.passwordSecret()
                    .ifPresent(s -> line.append("; password from Secret ").append(s));
            peer.bfdProfile().ifPresent(p -> line.append("; BFD ").append(p));
            if (peer.ebgpMultiHop()) {
                line.append("; eBGP multi-hop");
            }
            if (peer.enableGracefulRestart()) {
                line.append("; graceful restart");
            }
            if (peer.dualStackAddressFamily()) {
                line.append("; both address families");
            }
            if (!peer.nodeSelectors().isEmpty()) {
                line.append("; ").append(peer.nodeSelectors().size()).append(" node selector(s)");
            }
            lines.add(line.toString());
        }
        for (BgpAdvertisement adv : config.bgpAdvertisements()) {
            StringBuilder line = new StringBuilder("advertisement " + adv.name() + ": ");
            if (adv.ipAddressPools().isEmpty() && adv.ipAddressPoolSelectors().isEmpty()) {
                line.append("every pool");
            } else {
                line.append("pools ").append(adv.ipAddressPools());
                if (!adv.ipAddressPoolSelectors().isEmpty()) {
                    line.append(" and ")
                            .append(adv.ipAddressPoolSelectors().size())
                            .append(" selector(s)");
                }
            }
            line.append("; /").append(adv.aggregationLength()).append(", /").append(adv.aggregationLengthV6());
            adv.localPref().ifPresent(p -> line.append("; local preference ").append(p));
            if (!adv.communities().isEmpty()) {
                line.append("; communities ").append(adv.communities());
            }
            if (!adv.peers().isEmpty()) {
                line.append("; peers ").append(adv.peers());
            }
            if (!adv.nodeSelectors().isEmpty()) {
                line.append("; ").append(adv.nodeSelectors().size()).append(" node selector(s)");
            }
            lines.add(line.toString());
        }
        return lines;
    }

    static String seconds(Duration duration) {
        return duration.toSeconds() + "s";
    }

    static ConfigSources reversed(ConfigSources s) {
        return new ConfigSources(
                ConfigParserTest.reverse(s.ipAddressPools()),
                ConfigParserTest.reverse(s.l2Advertisements()),
                ConfigParserTest.reverse(s.configMaps()),
                ConfigParserTest.reverse(s.bgpPeers()),
                ConfigParserTest.reverse(s.bgpAdvertisements()),
                ConfigParserTest.reverse(s.communities()),
                ConfigParserTest.reverse(s.bfdProfiles()));
    }
}

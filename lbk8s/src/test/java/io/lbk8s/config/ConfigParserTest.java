package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven: each case is manifests (and ConfigMap texts) → the pools in the resulting config (name and range
 * texts, in config order) and the exact problems, in order, as {@link ConfigProblem#toString()} prints them.
 */
class ConfigParserTest {

    // --- case builders ---------------------------------------------------------------------------------------------

    /** An IPAddressPool in metallb-system with the given spec (YAML, flow style is handy). */
    static String pool(String name, String spec) {
        return poolIn("metallb-system", name, spec);
    }

    static String poolIn(String namespace, String name, String spec) {
        return document("IPAddressPool", namespace, name, spec);
    }

    static String l2(String name, String spec) {
        return document("L2Advertisement", "metallb-system", name, spec);
    }

    static String document(String kind, String namespace, String name, String spec) {
        return "---\napiVersion: metallb.io/v1beta1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: "
                + namespace + "\nspec: " + spec + "\n";
    }

    /** An IPAddressPool in metallb-system created at {@code createdAt} (RFC 3339, as the API server writes it). */
    static String poolCreated(String name, String createdAt, String spec) {
        return "---\napiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: " + name
                + "\n  namespace: metallb-system\n  creationTimestamp: '" + createdAt + "'\nspec: " + spec + "\n";
    }

    /** The lbk8s ConfigMap lbk8s-system/lbk8s-config with this config.yaml text (null: no such key). */
    static ConfigSources configMap(String configYaml) {
        return new ConfigSources(
                List.of(),
                List.of(),
                List.of(new ConfigSources.RawConfigMap("lbk8s-system", "lbk8s-config", configYaml)));
    }

    static ConfigSources manifests(String... documents) {
        return Fixtures.fromYaml(String.join("", documents));
    }

    static List<String> pools(String... pools) {
        return List.of(pools);
    }

    static final List<String> NO_POOLS = List.of();

    static Arguments ok(String name, ConfigSources sources, List<String> pools, String... warnings) {
        return argumentSet(name, sources, pools, List.of(warnings));
    }

    static Arguments bad(String name, ConfigSources sources, List<String> pools, String... problems) {
        return argumentSet(name, sources, pools, List.of(problems));
    }

    // --- the table -------------------------------------------------------------------------------------------------

    static Stream<Arguments> cases() {
        return Stream.of(
                // real user manifests
                ok(
                        "fixture: OpenStack ingress VIP",
                        Fixtures.load("openstack-ingress.yaml"),
                        pools("ingress: 192.0.2.10/32")),
                ok(
                        "fixture: Proxmox",
                        Fixtures.load("proxmox-ingress.yaml"),
                        pools("ingress: 203.0.113.75-203.0.113.78")),
                ok(
                        "fixture: homelab",
                        Fixtures.load("homelab-pool.yaml"),
                        pools("default-pool: 192.168.68.200-192.168.68.220")),
                ok(
                        "fixture: lbk8s ConfigMap",
                        Fixtures.load("lbk8s-configmap.yaml"),
                        pools("default: 10.5.0.200-10.5.0.220")),
                ok(
                        "fixtures: homelab, ConfigMap and OpenStack together",
                        Fixtures.combine(
                                Fixtures.load("homelab-pool.yaml"),
                                Fixtures.load("lbk8s-configmap.yaml"),
                                Fixtures.load("openstack-ingress.yaml")),
                        pools(
                                "default: 10.5.0.200-10.5.0.220",
                                "default-pool: 192.168.68.200-192.168.68.220",
                                "ingress: 192.0.2.10/32")),
                bad(
                        "fixtures: OpenStack and Proxmox both define ingress",
                        Fixtures.combine(
                                Fixtures.load("openstack-ingress.yaml"), Fixtures.load("proxmox-ingress.yaml")),
                        pools("ingress: 192.0.2.10/32"),
                        "ERROR IPAddressPool metallb-system/ingress: pool name \"ingress\" is already defined by IPAddressPool metallb-system/ingress"),

                // valid shapes
                ok(
                        "pools sorted by name whatever the input order",
                        manifests(
                                pool("zeta", "{addresses: [10.0.3.0/24]}"),
                                pool("alpha", "{addresses: [10.0.1.0/24]}"),
                                pool("mu", "{addresses: [10.0.2.0/24]}")),
                        pools("alpha: 10.0.1.0/24", "mu: 10.0.2.0/24", "zeta: 10.0.3.0/24")),
                ok(
                        "IPv6 CIDR and range",
                        manifests(pool("v6", "{addresses: ['fd00::/120', 'fd00:1::10-fd00:1::20', 'fd00:2::1/128']}")),
                        pools("v6: fd00::/120, fd00:1::10-fd00:1::20, fd00:2::1/128")),
                ok(
                        "dual-stack pool",
                        manifests(pool("dual", "{addresses: [10.0.0.0/24, 'fd00::/64']}")),
                        pools("dual: 10.0.0.0/24, fd00::/64")),
                ok(
                        "bare address and spaced range",
                        manifests(pool("p", "{addresses: [10.0.0.1, '10.0.1.1 - 10.0.1.9']}")),
                        pools("p: 10.0.0.1, 10.0.1.1 - 10.0.1.9")),
                ok(
                        "adjacent ranges do not overlap",
                        manifests(pool("a", "{addresses: [10.0.0.0/25]}"), pool("b", "{addresses: [10.0.0.128/25]}")),
                        pools("a: 10.0.0.0/25", "b: 10.0.0.128/25")),
                bad(
                        "IPv4-mapped IPv6 is refused as special-purpose, not as an overlap with the IPv4 range",
                        manifests(
                                pool("a", "{addresses: [10.0.0.0/24]}"),
                                pool("b", "{addresses: ['::ffff:10.0.0.0/120']}")),
                        pools("a: 10.0.0.0/24"),
                        "ERROR IPAddressPool metallb-system/b: addresses[0] \"::ffff:10.0.0.0/120\": includes addresses that are never a host's, so never a Service's: ::ffff:0:0/96 (IPv4-mapped (RFC 4291), an IPv4 address in IPv6 notation: write the IPv4 address)"),
                ok(
                        "avoidBuggyIPs with usable addresses left",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], avoidBuggyIPs: true}")),
                        pools("p: 10.0.0.0/24")),
                ok(
                        "avoidBuggyIPs: a .254/31 keeps .254",
                        manifests(pool("p", "{addresses: [10.0.0.254/31], avoidBuggyIPs: true}")),
                        pools("p: 10.0.0.254/31")),
                ok(
                        "avoidBuggyIPs does not touch IPv6",
                        manifests(pool("p", "{addresses: ['fd00::/128'], avoidBuggyIPs: true}")),
                        pools("p: fd00::/128")),
                ok("full serviceAllocation", manifests(pool("p", """
                                {addresses: [10.0.0.0/24], serviceAllocation: {priority: 50, namespaces: [team-a, team-b],
                                  namespaceSelectors: [{matchLabels: {team: a}}],
                                  serviceSelectors: [{matchExpressions: [{key: app.kubernetes.io/name, operator: In, values: [web]},
                                                                        {key: canary, operator: DoesNotExist}]}]}}""")), pools("p: 10.0.0.0/24")),
                ok(
                        "L2Advertisement with every field and no spec at all",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24]}"),
                                l2(
                                        "full",
                                        "{ipAddressPools: [p], ipAddressPoolSelectors: [{matchLabels: {tier: edge}}],"
                                                + " nodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, values: [n1]}]}],"
                                                + " interfaces: [eth0, enp1s0]}"),
                                l2("empty", "null")),
                        pools("p: 10.0.0.0/24")),
                ok(
                        "ConfigMap with both defaults written out and IPv6",
                        configMap(
                                "pools:\n- name: a\n  addresses: ['fd00::10-fd00::20']\n  autoAssign: false\n  avoidBuggyIPs: true\n"),
                        pools("a: fd00::10-fd00::20")),
                ok("ConfigMap: empty text defines nothing", configMap(""), NO_POOLS),
                ok("ConfigMap: only comments", configMap("# nothing yet\n"), NO_POOLS),
                ok("ConfigMap: no pools key", configMap("{}"), NO_POOLS),

                // warnings only
                ok(
                        "unknown spec field",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], autoassign: false}")),
                        pools("p: 10.0.0.0/24"),
                        "WARNING IPAddressPool metallb-system/p: spec: unknown field \"autoassign\" is ignored"),
                ok(
                        "CIDR with host bits",
                        manifests(pool("p", "{addresses: [10.0.0.7/24]}")),
                        pools("p: 10.0.0.7/24"),
                        "WARNING IPAddressPool metallb-system/p: addresses[0] \"10.0.0.7/24\": host bits are set; this means 10.0.0.0/24"),
                ok(
                        "avoidBuggyIPs: one entry wholly excluded",
                        manifests(pool("p", "{addresses: [10.0.0.0/32, 10.0.1.0/24], avoidBuggyIPs: true}")),
                        pools("p: 10.0.0.0/32, 10.0.1.0/24"),
                        "WARNING IPAddressPool metallb-system/p: addresses[0] \"10.0.0.0/32\": avoidBuggyIPs excludes every address of this entry"),
                ok(
                        "L2Advertisement naming a missing pool (still in the config)",
                        manifests(pool("p", "{addresses: [10.0.0.0/24]}"), l2("adv", "{ipAddressPools: [p, nope, p]}")),
                        pools("p: 10.0.0.0/24"),
                        "WARNING L2Advertisement metallb-system/adv: ipAddressPools[1]: pool \"nope\" does not exist",
                        "WARNING L2Advertisement metallb-system/adv: ipAddressPools[2]: pool \"p\" is listed twice"),
                ok(
                        "L2Advertisement unknown field, bad interface name; preferredNodeSelectors accepted",
                        manifests(
                                l2(
                                        "adv",
                                        "{interfaces: [eth0, 'this-name-is-too-long0', 'a/b'], bogus: 1,"
                                                + " preferredNodeSelectors: [{weight: 10, preference: {matchLabels: {a: b}}}]}")),
                        NO_POOLS,
                        "WARNING L2Advertisement metallb-system/adv: spec: unknown field \"bogus\" is ignored",
                        "WARNING L2Advertisement metallb-system/adv: interfaces[1]: \"this-name-is-too-long0\" is not a valid network interface name (1-15 characters, no '/', ':' or spaces), so it matches no interface",
                        "WARNING L2Advertisement metallb-system/adv: interfaces[2]: \"a/b\" is not a valid network interface name (1-15 characters, no '/', ':' or spaces), so it matches no interface"),
                ok(
                        "serviceAllocation: duplicate and impossible namespaces",
                        manifests(pool(
                                "p", "{addresses: [10.0.0.0/24], serviceAllocation: {namespaces: [a, a, Team_B]}}")),
                        pools("p: 10.0.0.0/24"),
                        "WARNING IPAddressPool metallb-system/p: serviceAllocation.namespaces[1]: namespace \"a\" is listed twice",
                        "WARNING IPAddressPool metallb-system/p: serviceAllocation.namespaces[2]: \"Team_B\" is not a valid namespace name, so it matches no namespace"),
                ok(
                        "ConfigMap: missing config.yaml key",
                        configMap(null),
                        NO_POOLS,
                        "WARNING ConfigMap lbk8s-system/lbk8s-config: has no config.yaml key, so it defines no pools"),
                ok(
                        "ConfigMap: unknown fields",
                        configMap("version: 2\npools:\n- name: a\n  addresses: [10.0.0.0/24]\n  color: blue\n"),
                        pools("a: 10.0.0.0/24"),
                        "WARNING ConfigMap lbk8s-system/lbk8s-config: config.yaml: unknown field \"version\" is ignored",
                        "WARNING ConfigMap lbk8s-system/lbk8s-config: pools[0] \"a\": unknown field \"color\" is ignored"),
                bad(
                        "L2Advertisement may name a ConfigMap pool, or a pool that has errors, without a warning",
                        Fixtures.combine(
                                manifests(
                                        pool("broken", "{addresses: [nope]}"),
                                        l2("adv", "{ipAddressPools: [default, broken]}")),
                                Fixtures.load("lbk8s-configmap.yaml")),
                        pools("default: 10.5.0.200-10.5.0.220"),
                        "ERROR IPAddressPool metallb-system/broken: addresses[0] \"nope\": \"nope\" is not a CIDR, a range or an IP address"),
                bad(
                        "IPAddressPool without a name",
                        Fixtures.fromYaml("""
                                apiVersion: metallb.io/v1beta1
                                kind: IPAddressPool
                                metadata: {namespace: metallb-system}
                                spec: {addresses: [10.0.0.0/24]}
                                """),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/null: metadata.name is required"),
                bad(
                        "quotes, backslashes and long strings are quoted safely",
                        manifests(
                                pool(
                                        "p",
                                        "{addresses: ['say \"hi\"\\n', '" + "a".repeat(300)
                                                + "'], autoAssign: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses[0] \"say \\\"hi\\\"\\\\n\": \"say \\\"hi\\\"\\\\n\" is not a CIDR, a range or an IP address",
                        "ERROR IPAddressPool metallb-system/p: addresses[1] \"" + "a".repeat(256)
                                + "\"... (44 more chars): \"" + "a".repeat(256)
                                + "\"... (44 more chars) is not a CIDR, a range or an IP address",
                        "ERROR IPAddressPool metallb-system/p: autoAssign: expected a boolean (true or false), got a string (\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\")"),
                bad(
                        "a newline inside an address is escaped (around it, whitespace is stripped)",
                        configMap("pools:\n- name: a\n  addresses: [\"10.0.0.1\\n10.0.0.2\", \" 10.0.1.1\\n\"]\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0] \"a\": addresses[0] \"10.0.0.1\\n10.0.0.2\": \"10.0.0.1\\n10.0.0.2\" is not a CIDR, a range or an IP address"),

                // type errors
                bad(
                        "addresses as a string",
                        manifests(pool("p", "{addresses: 10.0.0.0/24}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses: expected a list of CIDRs, ranges or IP addresses, got a string (\"10.0.0.0/24\")"),
                bad(
                        "addresses missing",
                        manifests(pool("p", "{autoAssign: false}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses is required: expected a list of CIDRs, ranges or IP addresses"),
                bad(
                        "addresses empty",
                        manifests(pool("p", "{addresses: []}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses: expected at least one CIDR, range or IP address, got an empty list"),
                bad(
                        "address not a string",
                        manifests(pool("p", "{addresses: [10.0.0.0/24, 42, [10.0.1.0/24]]}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses[1]: expected a string (a CIDR, a range or an IP address), got a number (42)",
                        "ERROR IPAddressPool metallb-system/p: addresses[2]: expected a string (a CIDR, a range or an IP address), got a list"),
                bad(
                        "autoAssign \"yes\"",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], autoAssign: 'yes'}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: autoAssign: expected a boolean (true or false), got a string (\"yes\")"),
                bad(
                        "avoidBuggyIPs 1",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], avoidBuggyIPs: 1}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: avoidBuggyIPs: expected a boolean (true or false), got a number (1)"),
                bad(
                        "spec is a string",
                        manifests(pool("p", "just-a-string")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: spec: expected a map, got a string (\"just-a-string\")"),
                bad(
                        "spec is a list",
                        manifests(pool("p", "[10.0.0.0/24]")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: spec: expected a map, got a list"),
                bad(
                        "spec missing",
                        manifests(pool("p", "null")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: spec is required: expected a map with at least \"addresses\""),
                bad(
                        "priority a string",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], serviceAllocation: {priority: '1'}}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.priority: expected an integer, got a string (\"1\")"),
                bad(
                        "priority a fraction",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], serviceAllocation: {priority: 1.5}}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.priority: expected an integer, got a number (1.5)"),
                bad(
                        "priority too big",
                        manifests(pool("p", "{addresses: [10.0.0.0/24], serviceAllocation: {priority: 3000000000}}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.priority: 3000000000 is out of range for a 32-bit integer"),
                bad(
                        "serviceAllocation a list and namespaces a string",
                        manifests(
                                pool("p", "{addresses: [10.0.0.0/24], serviceAllocation: [a]}"),
                                pool("q", "{addresses: [10.0.1.0/24], serviceAllocation: {namespaces: team-a}}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation: expected a map, got a list",
                        "ERROR IPAddressPool metallb-system/q: serviceAllocation.namespaces: expected a list of namespace names, got a string (\"team-a\")"),

                // label selectors (Kubernetes' rules)
                bad(
                        "selector: bad operator, In without values, Exists with values, missing key",
                        manifests(pool(
                                "p",
                                "{addresses: [10.0.0.0/24], serviceAllocation: {serviceSelectors: [{matchExpressions: ["
                                        + "{key: a, operator: in, values: [x]}, {key: b, operator: In}, {key: c, operator: Exists, values: [x]},"
                                        + " {operator: DoesNotExist}, {key: e}]}]}}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.serviceSelectors[0].matchExpressions[0].operator: \"in\" is not an operator; expected In, NotIn, Exists or DoesNotExist",
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.serviceSelectors[0].matchExpressions[1].values: operator In needs at least one value",
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.serviceSelectors[0].matchExpressions[2].values: operator Exists takes no values, got 1",
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.serviceSelectors[0].matchExpressions[3].key is required",
                        "ERROR IPAddressPool metallb-system/p: serviceAllocation.serviceSelectors[0].matchExpressions[4].operator is required: expected In, NotIn, Exists or DoesNotExist"),
                bad(
                        "selector: bad label key and values, non-string label value",
                        manifests(
                                l2(
                                        "adv",
                                        "{nodeSelectors: [{matchLabels: {'bad key': x, ok: true, 'Example.com/x': y}},"
                                                + " {matchExpressions: [{key: zone, operator: In, values: ['-bad-']}]}, 'zone=a']}")),
                        NO_POOLS,
                        "ERROR L2Advertisement metallb-system/adv: nodeSelectors[0].matchLabels: \"Example.com/x\" is not a valid label key: the prefix before '/' must be a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253)",
                        "ERROR L2Advertisement metallb-system/adv: nodeSelectors[0].matchLabels: \"bad key\" is not a valid label key: the name must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
                        "ERROR L2Advertisement metallb-system/adv: nodeSelectors[0].matchLabels.ok: expected a string, got a boolean (true)",
                        "ERROR L2Advertisement metallb-system/adv: nodeSelectors[1].matchExpressions[0].values[0]: \"-bad-\" is not a valid label value: it must be empty or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
                        "ERROR L2Advertisement metallb-system/adv: nodeSelectors[2]: expected a label selector (a map with matchLabels and/or matchExpressions), got a string (\"zone=a\")"),
                bad(
                        "L2Advertisement: wrong types, serviceSelectors refused",
                        manifests(l2(
                                "adv",
                                "{ipAddressPools: p, interfaces: [1], ipAddressPoolSelectors: {matchLabels: {a: b}},"
                                        + " serviceSelectors: [{matchLabels: {app: web}}]}")),
                        NO_POOLS,
                        "ERROR L2Advertisement metallb-system/adv: ipAddressPools: expected a list of pool names, got a string (\"p\")",
                        "ERROR L2Advertisement metallb-system/adv: ipAddressPoolSelectors: expected a list of label selectors, got a map",
                        "ERROR L2Advertisement metallb-system/adv: interfaces[0]: expected a string, got a number (1)",
                        "ERROR L2Advertisement metallb-system/adv: serviceSelectors is not supported by lbk8s: remove it (ignoring it would announce every Service of the selected pools)"),
                bad(
                        "L2Advertisement: preferredNodeSelectors without weight, out of range, without preference, not a list entry",
                        manifests(
                                l2(
                                        "adv",
                                        "{preferredNodeSelectors: [{preference: {matchLabels: {a: b}}}, {weight: 0, preference: {}},"
                                                + " {weight: 101, preference: {}}, {weight: 5}, 'x', {weight: 7, preference: {matchLabels: {a: b}}, extra: 1}]}")),
                        NO_POOLS,
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors[0].weight is required (1-100)",
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors[1].weight: 0 is out of range; a weight is 1-100",
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors[2].weight: 101 is out of range; a weight is 1-100",
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors[3].preference is required (a label selector of preferred nodes)",
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors[4]: expected {weight, preference}, got a string (\"x\")",
                        "WARNING L2Advertisement metallb-system/adv: preferredNodeSelectors[5]: unknown field \"extra\" is ignored"),
                bad(
                        "L2Advertisement: preferredNodeSelectors not a list",
                        manifests(l2("adv", "{preferredNodeSelectors: {weight: 5}}")),
                        NO_POOLS,
                        "ERROR L2Advertisement metallb-system/adv: preferredNodeSelectors: expected a list of {weight, preference}, got a map"),
                bad(
                        "L2Advertisement: spec a string",
                        manifests(l2("adv", "'everything'")),
                        NO_POOLS,
                        "ERROR L2Advertisement metallb-system/adv: spec: expected a map, got a string (\"everything\")"),

                // addresses
                bad(
                        "bad IP in a CIDR (the documented example)",
                        manifests(pool("ingress", "{addresses: [10.0.1.0/24, 10.0.0.300/24]}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/ingress: addresses[1] \"10.0.0.300/24\": \"10.0.0.300\" is not an IP address"),
                bad(
                        "every kind of bad address, all reported",
                        manifests(pool(
                                "p",
                                "{addresses: [10.0.0.9-10.0.0.1, '10.0.0.1-fd00::1', 10.0.0.0/33, 'fd00::/129', 010.0.0.1/32,"
                                        + " banana, '', 10.0.0.0/x, 10.0.0.1-]}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses[0] \"10.0.0.9-10.0.0.1\": the range is reversed: 10.0.0.9 is above 10.0.0.1",
                        "ERROR IPAddressPool metallb-system/p: addresses[1] \"10.0.0.1-fd00::1\": the range mixes IPv4 and IPv6",
                        "ERROR IPAddressPool metallb-system/p: addresses[2] \"10.0.0.0/33\": prefix length /33 is longer than the 32 bits of an IPv4 address",
                        "ERROR IPAddressPool metallb-system/p: addresses[3] \"fd00::/129\": prefix length /129 is longer than the 128 bits of an IPv6 address",
                        "ERROR IPAddressPool metallb-system/p: addresses[4] \"010.0.0.1/32\": \"010.0.0.1\" is not an IP address",
                        "ERROR IPAddressPool metallb-system/p: addresses[5] \"banana\": \"banana\" is not a CIDR, a range or an IP address",
                        "ERROR IPAddressPool metallb-system/p: addresses[6] \"\": an empty string is not a CIDR, a range or an IP address",
                        "ERROR IPAddressPool metallb-system/p: addresses[7] \"10.0.0.0/x\": \"x\" is not a prefix length",
                        "ERROR IPAddressPool metallb-system/p: addresses[8] \"10.0.0.1-\": a range needs an address on both sides of the \"-\""),
                bad(
                        "one bad pool does not take the good one down",
                        manifests(pool("bad", "{addresses: [nope]}"), pool("good", "{addresses: [10.0.0.0/24]}")),
                        pools("good: 10.0.0.0/24"),
                        "ERROR IPAddressPool metallb-system/bad: addresses[0] \"nope\": \"nope\" is not a CIDR, a range or an IP address"),
                bad(
                        "avoidBuggyIPs leaves nothing: x.x.x.0/32",
                        manifests(pool("p", "{addresses: [192.0.2.0/32], avoidBuggyIPs: true}")),
                        NO_POOLS,
                        "WARNING IPAddressPool metallb-system/p: addresses[0] \"192.0.2.0/32\": avoidBuggyIPs excludes every address of this entry",
                        "ERROR IPAddressPool metallb-system/p: avoidBuggyIPs: excludes every address of the pool (IPv4 addresses ending in .0 or .255), so it has none to assign"),
                bad(
                        "avoidBuggyIPs leaves nothing: .255-.0 across a boundary",
                        manifests(pool("p", "{addresses: [10.0.0.255-10.0.1.0], avoidBuggyIPs: true}")),
                        NO_POOLS,
                        "WARNING IPAddressPool metallb-system/p: addresses[0] \"10.0.0.255-10.0.1.0\": avoidBuggyIPs excludes every address of this entry",
                        "ERROR IPAddressPool metallb-system/p: avoidBuggyIPs: excludes every address of the pool (IPv4 addresses ending in .0 or .255), so it has none to assign"),

                // overlaps
                bad(
                        "overlap inside one pool",
                        manifests(pool("p", "{addresses: [10.0.0.0/24, 10.0.1.0/24, 10.0.0.128/25]}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses[2] \"10.0.0.128/25\" overlaps addresses[0] \"10.0.0.0/24\" of the same pool"),
                bad(
                        "same range twice in one pool",
                        manifests(pool("p", "{addresses: ['fd00::1', 'fd00::1/128']}")),
                        NO_POOLS,
                        "ERROR IPAddressPool metallb-system/p: addresses[1] \"fd00::1/128\" overlaps addresses[0] \"fd00::1\" of the same pool"),
                bad(
                        "overlap between pools names both",
                        manifests(
                                pool("a", "{addresses: [10.0.0.0/24]}"),
                                pool("b", "{addresses: [10.1.0.0/24, 10.0.0.200-10.0.1.10]}")),
                        pools("a: 10.0.0.0/24"),
                        "ERROR IPAddressPool metallb-system/b: addresses[1] \"10.0.0.200-10.0.1.10\" overlaps addresses[0] \"10.0.0.0/24\" of pool \"a\" (IPAddressPool metallb-system/a)"),
                bad(
                        "overlap is reported on the pool created later, wherever its range starts",
                        manifests(
                                poolCreated("a", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.128/25]}"),
                                poolCreated("b", "2026-12-01T10:00:01Z", "{addresses: [10.0.0.0/24]}")),
                        pools("a: 10.0.0.128/25"),
                        "ERROR IPAddressPool metallb-system/b: addresses[0] \"10.0.0.0/24\" overlaps addresses[0] \"10.0.0.128/25\" of pool \"a\" (IPAddressPool metallb-system/a)"),
                bad(
                        "pools created in the same second: the later name is refused",
                        manifests(pool("b", "{addresses: [10.0.0.128/25]}"), pool("a", "{addresses: [10.0.0.0/24]}")),
                        pools("a: 10.0.0.0/24"),
                        "ERROR IPAddressPool metallb-system/b: addresses[0] \"10.0.0.128/25\" overlaps addresses[0] \"10.0.0.0/24\" of pool \"a\" (IPAddressPool metallb-system/a)"),
                bad(
                        "10.0.0.0/8 applied after the pool in use is refused, the pool in use is kept",
                        manifests(
                                poolCreated("default", "2026-12-01T10:00:00Z", "{addresses: [10.5.0.200-10.5.0.220]}"),
                                poolCreated("all", "2026-12-02T09:00:00Z", "{addresses: [10.0.0.0/8]}"),
                                poolCreated("later", "2026-12-02T09:00:05Z", "{addresses: [192.0.2.0/28]}")),
                        pools("default: 10.5.0.200-10.5.0.220", "later: 192.0.2.0/28"),
                        "ERROR IPAddressPool metallb-system/all: addresses[0] \"10.0.0.0/8\" overlaps addresses[0] \"10.5.0.200-10.5.0.220\" of pool \"default\" (IPAddressPool metallb-system/default)"),
                bad(
                        "fd00::/8 applied after the pool in use is refused, the pool in use is kept",
                        manifests(
                                poolCreated("v6", "2026-12-01T10:00:00Z", "{addresses: ['fd00:5::/120']}"),
                                poolCreated("all", "2026-12-02T09:00:00Z", "{addresses: ['fd00::/8']}")),
                        pools("v6: fd00:5::/120"),
                        "ERROR IPAddressPool metallb-system/all: addresses[0] \"fd00::/8\" overlaps addresses[0] \"fd00:5::/120\" of pool \"v6\" (IPAddressPool metallb-system/v6)"),
                bad(
                        "a pool overlapping two older ones is refused, and both are kept",
                        manifests(
                                poolCreated("old", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.0-10.0.0.50]}"),
                                poolCreated("new", "2026-12-03T10:00:00Z", "{addresses: [10.0.0.0-10.0.0.100]}"),
                                poolCreated("mid", "2026-12-02T10:00:00Z", "{addresses: [10.0.0.60-10.0.0.70]}")),
                        pools("mid: 10.0.0.60-10.0.0.70", "old: 10.0.0.0-10.0.0.50"),
                        "ERROR IPAddressPool metallb-system/new: addresses[0] \"10.0.0.0-10.0.0.100\" overlaps addresses[0] \"10.0.0.0-10.0.0.50\" of pool \"old\" (IPAddressPool metallb-system/old)"),
                bad(
                        "a pool's own wide range does not hide another pool's",
                        manifests(
                                poolCreated("q", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.0-10.0.0.100]}"),
                                poolCreated(
                                        "p",
                                        "2026-12-02T10:00:00Z",
                                        "{addresses: [10.0.0.10-10.0.0.200, 10.0.0.150-10.0.0.160, 10.0.0.50-10.0.0.60]}")),
                        pools("q: 10.0.0.0-10.0.0.100"),
                        "ERROR IPAddressPool metallb-system/p: addresses[2] \"10.0.0.50-10.0.0.60\" overlaps addresses[0] \"10.0.0.10-10.0.0.200\" of the same pool",
                        "ERROR IPAddressPool metallb-system/p: addresses[1] \"10.0.0.150-10.0.0.160\" overlaps addresses[0] \"10.0.0.10-10.0.0.200\" of the same pool",
                        "ERROR IPAddressPool metallb-system/p: addresses[0] \"10.0.0.10-10.0.0.200\" overlaps addresses[0] \"10.0.0.0-10.0.0.100\" of pool \"q\" (IPAddressPool metallb-system/q)",
                        "ERROR IPAddressPool metallb-system/p: addresses[2] \"10.0.0.50-10.0.0.60\" overlaps addresses[0] \"10.0.0.0-10.0.0.100\" of pool \"q\" (IPAddressPool metallb-system/q)"),
                bad(
                        "overlap between an IPAddressPool and the ConfigMap",
                        Fixtures.combine(
                                manifests(pool("edge", "{addresses: [10.5.0.0/24]}")),
                                Fixtures.load("lbk8s-configmap.yaml")),
                        pools("edge: 10.5.0.0/24"),
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0] \"default\": addresses[0] \"10.5.0.200-10.5.0.220\" overlaps addresses[0] \"10.5.0.0/24\" of pool \"edge\" (IPAddressPool metallb-system/edge)"),
                bad(
                        "a pool applied after the ConfigMap that overlaps it is refused, the ConfigMap's pool is kept",
                        manifests(
                                poolCreated("edge", "2026-12-02T10:00:00Z", "{addresses: [10.5.0.0/24]}"),
                                "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: lbk8s-config, namespace: lbk8s-system,"
                                        + " creationTimestamp: '2026-12-01T10:00:00Z'}\ndata:\n  config.yaml: |\n"
                                        + "    pools:\n    - name: default\n      addresses: [10.5.0.200-10.5.0.220]\n"),
                        pools("default: 10.5.0.200-10.5.0.220"),
                        "ERROR IPAddressPool metallb-system/edge: addresses[0] \"10.5.0.0/24\" overlaps addresses[0] \"10.5.0.200-10.5.0.220\" of pool \"default\" (ConfigMap lbk8s-system/lbk8s-config pools[0])"),
                bad(
                        "IPv6 overlap between pools",
                        manifests(
                                pool("a", "{addresses: ['fd00::/64']}"),
                                pool("b", "{addresses: ['fd00::ffff:0:0:0-fd00:0:0:1::5']}")),
                        pools("a: fd00::/64"),
                        "ERROR IPAddressPool metallb-system/b: addresses[0] \"fd00::ffff:0:0:0-fd00:0:0:1::5\" overlaps addresses[0] \"fd00::/64\" of pool \"a\" (IPAddressPool metallb-system/a)"),

                // duplicate names
                bad(
                        "same pool name in two namespaces",
                        manifests(
                                poolIn("ns-b", "web", "{addresses: [10.0.1.0/24]}"),
                                poolIn("ns-a", "web", "{addresses: [10.0.0.0/24]}")),
                        pools("web: 10.0.0.0/24"),
                        "ERROR IPAddressPool ns-b/web: pool name \"web\" is already defined by IPAddressPool ns-a/web"),
                bad(
                        "pool name in an IPAddressPool and the ConfigMap",
                        Fixtures.combine(
                                manifests(pool("default", "{addresses: [10.9.0.0/24]}")),
                                Fixtures.load("lbk8s-configmap.yaml")),
                        pools("default: 10.9.0.0/24"),
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0] \"default\": pool name \"default\" is already defined by IPAddressPool metallb-system/default"),
                bad(
                        "pool name twice in the ConfigMap",
                        configMap(
                                "pools:\n- name: a\n  addresses: [10.0.0.0/24]\n- name: a\n  addresses: [10.0.1.0/24]\n"),
                        pools("a: 10.0.0.0/24"),
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[1] \"a\": pool name \"a\" is already defined by ConfigMap lbk8s-system/lbk8s-config pools[0]"),

                // the ConfigMap
                bad(
                        "ConfigMap: pool without a name, empty name, name a number, pool a string",
                        configMap(
                                "pools:\n- addresses: [10.0.0.0/24]\n- name: ''\n  addresses: [10.0.1.0/24]\n- name: 7\n  addresses: [10.0.2.0/24]\n- 10.0.3.0/24\n"
                                        + "- name: ok\n  addresses: [10.0.4.0/24]\n"),
                        pools("ok: 10.0.4.0/24"),
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0]: name is required: expected a non-empty string",
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[1]: name is required: expected a non-empty string, got an empty string",
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[2]: name: expected a string, got a number (7)",
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[3]: expected a map with \"name\" and \"addresses\", got a string (\"10.0.3.0/24\")"),
                bad(
                        "ConfigMap: pool errors name the pool",
                        configMap("pools:\n- name: a\n  addresses: 10.0.0.0/24\n  autoAssign: yes\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0] \"a\": addresses: expected a list of CIDRs, ranges or IP addresses, got a string (\"10.0.0.0/24\")",
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools[0] \"a\": autoAssign: expected a boolean (true or false), got a string (\"yes\")"),
                bad(
                        "ConfigMap: pools is a map",
                        configMap("pools:\n  name: a\n  addresses: [10.0.0.0/24]\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: pools: expected a list of pools, got a map"),
                bad(
                        "ConfigMap: top level is a list",
                        configMap("- name: a\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: config.yaml: expected a map with a \"pools\" list, got a list"),
                bad(
                        "ConfigMap: YAML does not parse",
                        configMap("pools:\n- name: a\n  addresses: [10.0.0.0/24\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: config.yaml is not valid YAML (line 3, column 26): while parsing a flow sequence"),
                bad(
                        "ConfigMap: duplicate keys do not silently win",
                        configMap("pools:\n- name: a\n  addresses: [10.0.0.0/24]\n  name: b\n"),
                        NO_POOLS,
                        "ERROR ConfigMap lbk8s-system/lbk8s-config: config.yaml is not valid YAML (line 4, column 7): Duplicate Object property \"name\""));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void parses(ConfigSources sources, List<String> expectedPools, List<String> expectedProblems) {
        ConfigResult result = ConfigParser.parse(sources);

        assertThat(result.problems()).map(ConfigProblem::toString).containsExactlyElementsOf(expectedProblems);
        assertThat(result.config().pools()).map(ConfigParserTest::describe).containsExactlyElementsOf(expectedPools);
        boolean anyError = expectedProblems.stream().anyMatch(p -> p.startsWith("ERROR"));
        assertThat(result.valid()).isEqualTo(!anyError);

        // the same input, reordered, gives the same result
        ConfigResult again = ConfigParser.parse(reversed(sources));
        assertThat(again).isEqualTo(result);
    }

    static String describe(AddressPool pool) {
        return pool.name() + ": "
                + String.join(", ", pool.ranges().stream().map(IpRange::text).toList());
    }

    static ConfigSources reversed(ConfigSources sources) {
        return new ConfigSources(
                reverse(sources.ipAddressPools()), reverse(sources.l2Advertisements()), reverse(sources.configMaps()));
    }

    static <T> List<T> reverse(List<T> list) {
        List<T> copy = new ArrayList<>(list);
        java.util.Collections.reverse(copy);
        return copy;
    }
}

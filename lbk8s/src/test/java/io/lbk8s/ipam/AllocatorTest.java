package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.config;
import static io.lbk8s.ipam.Fixtures.ips;
import static io.lbk8s.ipam.Fixtures.pool;
import static io.lbk8s.ipam.Fixtures.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpFamily;
import io.lbk8s.config.Config;
import io.lbk8s.ipam.Fixtures.Svc;
import io.lbk8s.service.FamilyPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One assignment against a configuration, after some Services got theirs: each rule of the allocator, and each
 * FailureReason with the sentence the user reads. Multi-step behaviour is in {@link AllocatorScenarioTest}.
 */
class AllocatorTest {

    sealed interface Expect {}

    record Gets(String pool, List<String> ips) implements Expect {}

    record Fails(FailureReason reason, String message) implements Expect {}

    static Gets gets(String pool, String... ips) {
        return new Gets(pool, List.of(ips));
    }

    static Fails fails(FailureReason reason, String message) {
        return new Fails(reason, message);
    }

    static Arguments when(String name, Config config, List<Svc> before, Svc request, Expect expect) {
        return Arguments.argumentSet(name, name, config, before, request, expect);
    }

    static List<Svc> none() {
        return List.of();
    }

    static List<Svc> first(Svc... services) {
        return Arrays.asList(services);
    }

    static List<Svc> many(int count) {
        return IntStream.range(0, count).mapToObj(i -> svc("default/s" + i)).toList();
    }

    static final Config DEFAULT = config(pool("default", "10.0.0.0/24"));
    static final Config BUGGY = config(pool("default", "10.0.0.0/24").avoidBuggyIPs());
    static final Config DUAL = config(pool("dual", "10.0.0.0/24", "fd00::/120"));
    static final Config V4_ONLY = config(pool("v4", "10.0.0.0/24"));
    static final Config V6_ONLY = config(pool("v6", "fd00::/120"));
    static final Config SHARED = config(pool("default", "10.5.0.200-10.5.0.220"));

    static Stream<Arguments> cases() {
        return Stream.of(
                // --- basic allocation order
                when(
                        "no pool at all",
                        Config.EMPTY,
                        none(),
                        svc("default/a"),
                        fails(FailureReason.NO_POOLS, "no address pool is configured")),
                when("lowest free address of the pool", DEFAULT, none(), svc("default/a"), gets("default", "10.0.0.0")),
                when(
                        "lowest free address after taken ones",
                        DEFAULT,
                        first(svc("default/a"), svc("default/b")),
                        svc("default/c"),
                        gets("default", "10.0.0.2")),
                when(
                        "ranges in the order configured",
                        config(pool("p", "10.0.9.0/31", "10.0.0.0/31")),
                        first(svc("default/a"), svc("default/b")),
                        svc("default/c"),
                        gets("p", "10.0.0.0")),
                when(
                        "a range given as first-last",
                        config(pool("p", "10.0.0.7-10.0.0.9")),
                        none(),
                        svc("default/a"),
                        gets("p", "10.0.0.7")),
                when(
                        "auto-assign pools by name",
                        config(pool("b", "10.0.1.0/24"), pool("a", "10.0.2.0/24")),
                        none(),
                        svc("default/a"),
                        gets("a", "10.0.2.0")),
                when(
                        "next pool by name when the first is full",
                        config(pool("a", "10.0.1.1/32"), pool("b", "10.0.2.0/24")),
                        first(svc("default/x")),
                        svc("default/y"),
                        gets("b", "10.0.2.0")),

                // --- avoidBuggyIPs
                when("avoidBuggyIPs skips .0", BUGGY, none(), svc("default/a"), gets("default", "10.0.0.1")),
                when(
                        "avoidBuggyIPs skips .255 and .0 between /24s",
                        config(pool("p", "10.0.0.254-10.0.1.2").avoidBuggyIPs()),
                        first(svc("default/a")),
                        svc("default/b"),
                        gets("p", "10.0.1.1")),
                when(
                        "avoidBuggyIPs does not touch IPv6",
                        config(pool("p", "fd00::/120").avoidBuggyIPs()),
                        none(),
                        svc("default/a").v6(),
                        gets("p", "fd00::")),
                when(
                        "avoidBuggyIPs forbids a requested .255",
                        BUGGY,
                        none(),
                        svc("default/a").ips("10.0.0.255"),
                        fails(
                                FailureReason.IP_FORBIDDEN,
                                "requested IP 10.0.0.255 ends in .255, which pool \"default\" avoids (avoidBuggyIPs: true)")),
                when(
                        "avoidBuggyIPs forbids a requested .0",
                        BUGGY,
                        none(),
                        svc("default/a").ips("10.0.0.0"),
                        fails(
                                FailureReason.IP_FORBIDDEN,
                                "requested IP 10.0.0.0 ends in .0, which pool \"default\" avoids (avoidBuggyIPs: true)")),
                when(
                        "without avoidBuggyIPs .255 may be requested",
                        DEFAULT,
                        none(),
                        svc("default/a").ips("10.0.0.255"),
                        gets("default", "10.0.0.255")),

                // --- autoAssign and serviceAllocation
                when(
                        "autoAssign: false is never chosen",
                        config(pool("manual", "10.0.0.0/24").manual()),
                        none(),
                        svc("default/a"),
                        fails(
                                FailureReason.NO_MATCHING_POOL,
                                "no pool selects this Service: pool \"manual\" has autoAssign: false")),
                when(
                        "no pool selects: reserved and manual",
                        config(
                                pool("reserved", "10.0.1.0/24").namespaces("team"),
                                pool("manual", "10.0.2.0/24").manual()),
                        none(),
                        svc("default/a"),
                        fails(
                                FailureReason.NO_MATCHING_POOL,
                                "no pool selects this Service: pool \"reserved\" is limited by serviceAllocation,"
                                        + " pool \"manual\" has autoAssign: false")),
                when(
                        "by namespace: the pinned pool first",
                        config(
                                pool("a-general", "10.0.1.0/24"),
                                pool("z-team", "10.0.2.0/24").namespaces("team")),
                        none(),
                        svc("team/a"),
                        gets("z-team", "10.0.2.0")),
                when(
                        "by namespace: other namespaces use the general pool",
                        config(
                                pool("a-general", "10.0.1.0/24"),
                                pool("z-team", "10.0.2.0/24").namespaces("team")),
                        none(),
                        svc("other/a"),
                        gets("a-general", "10.0.1.0")),
                when(
                        "by namespace labels",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaceSelector("tier=gold")),
                        none(),
                        svc("shop/a").namespaceLabels("tier=gold", "x=y"),
                        gets("z", "10.0.2.0")),
                when(
                        "by namespace labels: no match",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaceSelector("tier=gold")),
                        none(),
                        svc("shop/a").namespaceLabels("tier=silver"),
                        gets("a", "10.0.1.0")),
                when(
                        "namespaces or namespace labels: listed namespace suffices",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team").namespaceSelector("tier=gold")),
                        none(),
                        svc("team/a"),
                        gets("z", "10.0.2.0")),
                when(
                        "by service labels",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").serviceSelector("lb=z")),
                        none(),
                        svc("default/a").labels("lb=z"),
                        gets("z", "10.0.2.0")),
                when(
                        "by service labels: any of several selectors",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").serviceSelector("lb=y").serviceSelector("lb=z")),
                        none(),
                        svc("default/a").labels("lb=z"),
                        gets("z", "10.0.2.0")),
                when(
                        "namespace and service labels: both must hold",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team").serviceSelector("lb=z")),
                        none(),
                        svc("team/a").labels("lb=other"),
                        gets("a", "10.0.1.0")),
                when(
                        "namespace and service labels: both hold",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team").serviceSelector("lb=z")),
                        none(),
                        svc("team/a").labels("lb=z"),
                        gets("z", "10.0.2.0")),
                when(
                        "priority: lower number first",
                        config(
                                pool("p20", "10.0.1.0/24").priority(20).namespaces("team"),
                                pool("p10", "10.0.2.0/24").priority(10).namespaces("team")),
                        none(),
                        svc("team/a"),
                        gets("p10", "10.0.2.0")),
                when(
                        "priority: unset after every given one",
                        config(
                                pool("a-unset", "10.0.1.0/24").namespaces("team"),
                                pool("b-50", "10.0.2.0/24").priority(50).namespaces("team")),
                        none(),
                        svc("team/a"),
                        gets("b-50", "10.0.2.0")),
                when(
                        "priority: equal priorities by name",
                        config(
                                pool("y", "10.0.1.0/24").priority(5).namespaces("team"),
                                pool("x", "10.0.2.0/24").priority(5).namespaces("team")),
                        none(),
                        svc("team/a"),
                        gets("x", "10.0.2.0")),
                when(
                        "priority only: selects every Service, before general pools",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").priority(1)),
                        none(),
                        svc("default/a"),
                        gets("z", "10.0.2.0")),
                when(
                        "pinned pool full: fall back to general pools",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.1/32").namespaces("team")),
                        first(svc("team/x")),
                        svc("team/y"),
                        gets("a", "10.0.1.0")),
                when(
                        "pinned pool with autoAssign: false is not chosen",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team").manual()),
                        none(),
                        svc("team/a"),
                        gets("a", "10.0.1.0")),

                // --- requested pool
                when(
                        "requested pool ignores autoAssign",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("manual", "10.0.2.0/24").manual()),
                        none(),
                        svc("default/a").pool("manual"),
                        gets("manual", "10.0.2.0")),
                when(
                        "requested pool that does not exist",
                        DEFAULT,
                        none(),
                        svc("default/a").pool("nope"),
                        fails(
                                FailureReason.POOL_NOT_FOUND,
                                "requested pool \"nope\" does not exist (pools: \"default\")")),
                when(
                        "requested pool reserved for others",
                        config(pool("reserved", "10.0.2.0/24").namespaces("team")),
                        none(),
                        svc("default/a").pool("reserved"),
                        fails(
                                FailureReason.POOL_NOT_ALLOWED,
                                "requested pool \"reserved\" is reserved by its serviceAllocation for other Services"
                                        + " (namespaces [team])")),
                when(
                        "requested pool reserved and selecting this Service",
                        config(pool("reserved", "10.0.2.0/24").namespaces("team")),
                        none(),
                        svc("team/a").pool("reserved"),
                        gets("reserved", "10.0.2.0")),
                when(
                        "requested pool full",
                        config(pool("a", "10.0.1.0/24"), pool("small", "10.0.2.1/32")),
                        first(svc("default/x").pool("small")),
                        svc("default/y").pool("small"),
                        fails(FailureReason.POOL_EXHAUSTED, "pool \"small\" has no free address (1 of 1 in use)")),

                // --- requested IPs
                when("requested IP", DEFAULT, none(), svc("default/a").ips("10.0.0.42"), gets("default", "10.0.0.42")),
                when(
                        "requested IP in an autoAssign: false pool",
                        config(pool("manual", "10.0.2.0/24").manual()),
                        none(),
                        svc("default/a").ips("10.0.2.9"),
                        gets("manual", "10.0.2.9")),
                when(
                        "requested IP in no pool",
                        DEFAULT,
                        none(),
                        svc("default/a").ips("192.168.9.9"),
                        fails(FailureReason.IP_NOT_IN_POOL, "requested IP 192.168.9.9 is not in any address pool")),
                when(
                        "requested IP in another pool than the requested one",
                        config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24")),
                        none(),
                        svc("default/a").pool("a").ips("10.0.2.5"),
                        fails(
                                FailureReason.IP_NOT_IN_POOL,
                                "requested IP 10.0.2.5 is not in the requested pool \"a\" (it is in pool \"b\")")),
                when(
                        "requested IP inside the requested pool",
                        config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24")),
                        none(),
                        svc("default/a").pool("b").ips("10.0.2.5"),
                        gets("b", "10.0.2.5")),
                when(
                        "requested IP in a pool reserved for others",
                        config(pool("reserved", "10.0.2.0/24").namespaces("team")),
                        none(),
                        svc("default/a").ips("10.0.2.5"),
                        fails(
                                FailureReason.POOL_NOT_ALLOWED,
                                "requested IP 10.0.2.5 is in pool \"reserved\", which its serviceAllocation reserves"
                                        + " for other Services (namespaces [team])")),
                when(
                        "requested IP in use, no sharing key",
                        SHARED,
                        first(svc("default/other").ips("10.5.0.210")),
                        svc("default/a").ips("10.5.0.210"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does not allow sharing"
                                        + " with this Service (it has no allow-shared-ip key)")),
                when(
                        "requested IP in use, this Service has no key",
                        SHARED,
                        first(svc("default/other").ips("10.5.0.210").sharing("k")),
                        svc("default/a").ips("10.5.0.210"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does not allow sharing"
                                        + " with this Service (this Service has no allow-shared-ip key)")),
                when(
                        "requested IP in use, ports overlap",
                        SHARED,
                        first(svc("default/other")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .ports("80/TCP", "443/TCP")),
                        svc("default/a").ips("10.5.0.210").sharing("k").ports("80/TCP", "53/UDP"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does"
                                        + " not allow sharing with this Service (ports 80/TCP overlap)")),
                when(
                        "requested IP in use, sharing keys differ",
                        SHARED,
                        first(svc("default/other").ips("10.5.0.210").sharing("k1")),
                        svc("default/a").ips("10.5.0.210").sharing("k2").ports("443/TCP"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does"
                                        + " not allow sharing with this Service (sharing keys \"k1\" and \"k2\" differ)")),
                when(
                        "requested IP in use, Local and Cluster",
                        SHARED,
                        first(svc("default/other")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .local()),
                        svc("default/a").ips("10.5.0.210").sharing("k").ports("443/TCP"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does"
                                        + " not allow sharing with this Service (one has externalTrafficPolicy Local, the other"
                                        + " Cluster)")),
                when(
                        "requested IP in use, Local with other selector",
                        SHARED,
                        first(svc("default/other")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .local("app=one")),
                        svc("default/a")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .ports("443/TCP")
                                .local("app=two"),
                        fails(
                                FailureReason.IP_IN_USE,
                                "requested IP 10.5.0.210 is in use by default/other, which does"
                                        + " not allow sharing with this Service (both have externalTrafficPolicy Local but"
                                        + " different selectors)")),
                when(
                        "requested IP shared: same key, other ports, both Cluster",
                        SHARED,
                        first(svc("default/other").ips("10.5.0.210").sharing("k")),
                        svc("default/a").ips("10.5.0.210").sharing("k").ports("443/TCP"),
                        gets("default", "10.5.0.210")),
                when(
                        "requested IP shared: same key, other ports, both Local with one selector",
                        SHARED,
                        first(svc("default/other")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .local("app=one")),
                        svc("default/a")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .ports("443/TCP")
                                .local("app=one"),
                        gets("default", "10.5.0.210")),
                when(
                        "same port number, other protocol is no overlap",
                        SHARED,
                        first(svc("default/other")
                                .ips("10.5.0.210")
                                .sharing("k")
                                .ports("53/TCP")),
                        svc("default/a").ips("10.5.0.210").sharing("k").ports("53/UDP"),
                        gets("default", "10.5.0.210")),
                when(
                        "two requested IPs of one family",
                        DEFAULT,
                        none(),
                        svc("default/a").ips("10.0.0.1", "10.0.0.2"),
                        fails(
                                FailureReason.INVALID_REQUEST,
                                "2 IPv4 addresses are requested (10.0.0.1, 10.0.0.2);"
                                        + " a Service can have at most one address per family")),
                when(
                        "requested IPs in two pools",
                        config(pool("a", "10.0.1.0/24"), pool("b", "fd00::/120")),
                        none(),
                        svc("default/a").requireDual().ips("10.0.1.1", "fd00::1"),
                        fails(
                                FailureReason.INVALID_REQUEST,
                                "requested IPs 10.0.1.1 and fd00::1 are in different"
                                        + " pools (\"a\" and \"b\"); all addresses of a Service must come from one pool")),
                when(
                        "requested IP of a family the Service lacks",
                        DUAL,
                        none(),
                        svc("default/a").ips("fd00::1"),
                        fails(
                                FailureReason.INVALID_REQUEST,
                                "requested IP fd00::1 is IPv6, but the Service's ipFamilies are [IPv4]")),
                when(
                        "requested IPs dual-stack",
                        DUAL,
                        none(),
                        svc("default/a").requireDual().ips("fd00::7", "10.0.0.7"),
                        gets("dual", "10.0.0.7", "fd00::7")),
                when(
                        "RequireDualStack with one requested IP",
                        DUAL,
                        none(),
                        svc("default/a").requireDual().ips("10.0.0.7"),
                        fails(
                                FailureReason.INVALID_REQUEST,
                                "a RequireDualStack Service needs an IPv4 and an IPv6"
                                        + " address, but only 10.0.0.7 is requested")),
                when(
                        "PreferDualStack with one requested IP",
                        DUAL,
                        none(),
                        svc("default/a").preferDual().ips("10.0.0.7"),
                        gets("dual", "10.0.0.7")),

                // --- exhaustion
                when(
                        "/32 pool exhausted",
                        config(pool("default", "10.0.0.1/32")),
                        first(svc("default/x")),
                        svc("default/a"),
                        fails(FailureReason.POOL_EXHAUSTED, "pool \"default\" has no free address (1 of 1 in use)")),
                when(
                        "pool of 21 exhausted",
                        SHARED,
                        many(21),
                        svc("default/a"),
                        fails(FailureReason.POOL_EXHAUSTED, "pool \"default\" has no free address (21 of 21 in use)")),
                when(
                        "avoidBuggyIPs pool exhausted counts usable addresses only",
                        config(pool("p", "10.0.0.254-10.0.1.1").avoidBuggyIPs()),
                        many(2),
                        svc("default/a"),
                        fails(FailureReason.POOL_EXHAUSTED, "pool \"p\" has no free address (2 of 2 in use)")),
                when(
                        "every candidate pool exhausted",
                        config(pool("a", "10.0.1.1/32"), pool("b", "10.0.2.1/32")),
                        many(2),
                        svc("default/a"),
                        fails(
                                FailureReason.POOL_EXHAUSTED,
                                "no pool for this Service has a free address: pool \"a\" has no free address"
                                        + " (1 of 1 in use), pool \"b\" has no free address (1 of 1 in use)")),
                when(
                        "IPv6 /64 pool",
                        config(pool("big", "2001:db8::/64")),
                        first(svc("default/x").v6()),
                        svc("default/a").v6(),
                        gets("big", "2001:db8::1")),
                when(
                        "IPv6 /64 pool, requested IP at the top",
                        config(pool("big", "2001:db8::/64")),
                        none(),
                        svc("default/a").v6().ips("2001:db8::ffff:ffff:ffff:ffff"),
                        gets("big", "2001:db8::ffff:ffff:ffff:ffff")),

                // --- families
                when(
                        "SingleStack IPv6 from a dual pool",
                        DUAL,
                        none(),
                        svc("default/a").v6(),
                        gets("dual", "fd00::")),
                when(
                        "SingleStack IPv6 without an IPv6 pool",
                        V4_ONLY,
                        none(),
                        svc("default/a").v6(),
                        fails(
                                FailureReason.FAMILY_UNAVAILABLE,
                                "no pool for this Service has IPv6 addresses (pool \"v4\" has only IPv4)")),
                when(
                        "SingleStack without families takes IPv4 if the pool has it",
                        DUAL,
                        none(),
                        svc("default/a").families(),
                        gets("dual", "10.0.0.0")),
                when(
                        "SingleStack without families takes IPv6 from an IPv6 pool",
                        V6_ONLY,
                        none(),
                        svc("default/a").families(),
                        gets("v6", "fd00::")),
                when(
                        "PreferDualStack, dual-stack pool",
                        DUAL,
                        none(),
                        svc("default/a").preferDual(),
                        gets("dual", "10.0.0.0", "fd00::")),
                when(
                        "PreferDualStack, IPv4-only pool",
                        V4_ONLY,
                        none(),
                        svc("default/a").preferDual(),
                        gets("v4", "10.0.0.0")),
                when(
                        "PreferDualStack, IPv6-only pool",
                        V6_ONLY,
                        none(),
                        svc("default/a").preferDual(),
                        gets("v6", "fd00::")),
                when(
                        "PreferDualStack takes a later dual-stack pool over an earlier single-stack one",
                        config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24", "fd00::/120")),
                        none(),
                        svc("default/a").preferDual(),
                        gets("b", "10.0.2.0", "fd00::")),
                when(
                        "PreferDualStack IPv6 first among single-stack pools",
                        config(pool("a", "10.0.1.0/24"), pool("b", "fd00::/120")),
                        none(),
                        svc("default/a").policy(FamilyPolicy.PreferDualStack).families(IpFamily.IPv6, IpFamily.IPv4),
                        gets("b", "fd00::")),
                when(
                        "PreferDualStack IPv4 first among single-stack pools by default",
                        config(pool("a", "fd00::/120"), pool("b", "10.0.1.0/24")),
                        none(),
                        svc("default/a").preferDual(),
                        gets("b", "10.0.1.0")),
                when(
                        "PreferDualStack, dual pool with its IPv6 full: IPv4 alone",
                        config(pool("dual", "10.0.0.0/24", "fd00::1/128")),
                        first(svc("default/x").v6()),
                        svc("default/a").preferDual(),
                        gets("dual", "10.0.0.0")),
                when(
                        "PreferDualStack on a single-stack cluster gets one address",
                        DUAL,
                        none(),
                        svc("default/a").policy(FamilyPolicy.PreferDualStack),
                        gets("dual", "10.0.0.0")),
                when(
                        "RequireDualStack, dual-stack pool",
                        DUAL,
                        none(),
                        svc("default/a").requireDual(),
                        gets("dual", "10.0.0.0", "fd00::")),
                when(
                        "RequireDualStack fails with single-stack pools only",
                        config(pool("a", "10.0.1.0/24"), pool("b", "fd00::/120")),
                        none(),
                        svc("default/a").requireDual(),
                        fails(
                                FailureReason.FAMILY_UNAVAILABLE,
                                "RequireDualStack needs an IPv4 and an IPv6 address from one pool, but no pool for"
                                        + " this Service has both families (pools \"a\" has only IPv4, \"b\" has only IPv6)")),
                when(
                        "RequireDualStack with the dual pool's IPv6 full",
                        config(pool("dual", "10.0.0.0/24", "fd00::1/128")),
                        first(svc("default/x").v6()),
                        svc("default/a").requireDual(),
                        fails(
                                FailureReason.POOL_EXHAUSTED,
                                "pool \"dual\" has no free IPv6 address (1 of 257 in use)")),
                when(
                        "RequireDualStack from a requested dual pool",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("m", "10.0.2.0/24", "fd00::/120").manual()),
                        none(),
                        svc("default/a").requireDual().pool("m"),
                        gets("m", "10.0.2.0", "fd00::")),

                // --- sharing preference
                when(
                        "a sharing key prefers an address already shared under it",
                        DEFAULT,
                        first(svc("default/a").sharing("k"), svc("default/b")),
                        svc("default/c").sharing("k").ports("443/TCP"),
                        gets("default", "10.0.0.0")),
                when(
                        "a sharing key with overlapping ports takes the lowest free one",
                        DEFAULT,
                        first(svc("default/a").sharing("k"), svc("default/b")),
                        svc("default/c").sharing("k"),
                        gets("default", "10.0.0.2")),
                when(
                        "a shared address outside the candidate pools is not used",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team")),
                        first(svc("team/a").sharing("k")),
                        svc("default/c").sharing("k").ports("443/TCP"),
                        gets("a", "10.0.1.0")),
                when(
                        "a shared address in a later candidate pool wins over a free one in the first",
                        config(pool("a", "10.0.1.1/32"), pool("b", "10.0.2.0/24")),
                        first(svc("default/x").pool("b").sharing("k")),
                        svc("default/c").sharing("k").ports("443/TCP"),
                        gets("b", "10.0.2.0")));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void assigns(String name, Config config, List<Svc> before, Svc request, Expect expect) {
        Allocator allocator = new Allocator(config);
        for (Svc s : before) {
            assertThat(allocator.assign(s.build())).as("%s: setup %s", name, s).isInstanceOf(Outcome.Assigned.class);
        }
        Optional<Assignment> held = allocator.assignmentOf(request.build().service());
        Outcome outcome = allocator.assign(request.build());
        switch (expect) {
            case Gets(String pool, List<String> ips) -> {
                Assignment expected = new Assignment(request.build().service(), pool, ips(ips.toArray(String[]::new)));
                boolean changed = !held.equals(Optional.of(expected));
                assertThat(outcome).as(name).isEqualTo(new Outcome.Assigned(expected, changed));
                assertThat(allocator.assignmentOf(expected.service())).contains(expected);
            }
            case Fails(FailureReason reason, String message) -> {
                assertThat(outcome).as(name).isEqualTo(new Outcome.Failed(reason, message));
                assertThat(allocator.assignmentOf(request.build().service())).isEmpty();
            }
        }
        // asking again changes nothing
        List<PoolUsage> usage = new ArrayList<>(allocator.usage());
        Outcome again = outcome instanceof Outcome.Assigned(Assignment kept, var _)
                ? new Outcome.Assigned(kept, false)
                : outcome;
        assertThat(allocator.assign(request.build())).as(name + " (again)").isEqualTo(again);
        assertThat(allocator.usage()).isEqualTo(usage);
    }
}

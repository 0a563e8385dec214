package io.lbk8s.ipam;

import static io.lbk8s.ipam.AllocatorTest.fails;
import static io.lbk8s.ipam.AllocatorTest.gets;
import static io.lbk8s.ipam.Fixtures.config;
import static io.lbk8s.ipam.Fixtures.ips;
import static io.lbk8s.ipam.Fixtures.key;
import static io.lbk8s.ipam.Fixtures.pool;
import static io.lbk8s.ipam.Fixtures.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.config.Config;
import io.lbk8s.ipam.AllocatorTest.Expect;
import io.lbk8s.ipam.AllocatorTest.Fails;
import io.lbk8s.ipam.AllocatorTest.Gets;
import io.lbk8s.ipam.Fixtures.Svc;
import io.lbk8s.service.ServiceKey;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Sequences of calls, after MetalLB's e2e list: restarts, pool changes, sharing changes, exhaustion. */
class AllocatorScenarioTest {

    sealed interface Step {}

    record Assign(Svc svc, Expect expect) implements Step {}

    record Release(String service) implements Step {}

    /** Restore with these status IPs; expect the assignment, or nothing when {@code expect} is null. */
    record Restore(Svc svc, List<String> status, Gets expect) implements Step {}

    record Reconfigure(Config config, Set<String> released) implements Step {}

    /** What a Service holds now; null = nothing. */
    record Holds(String service, Gets expect) implements Step {}

    record Usage(String pool, long total, long inUse) implements Step {}

    static Step assign(Svc svc, Expect expect) {
        return new Assign(svc, expect);
    }

    static Step release(String service) {
        return new Release(service);
    }

    static Step restore(Svc svc, List<String> status, Gets expect) {
        return new Restore(svc, status, expect);
    }

    static Step reconfigure(Config config, String... released) {
        return new Reconfigure(config, Set.of(released));
    }

    static Step holds(String service, Gets expect) {
        return new Holds(service, expect);
    }

    static Step usage(String pool, long total, long inUse) {
        return new Usage(pool, total, inUse);
    }

    static List<String> status(String... ips) {
        return List.of(ips);
    }

    static Arguments scenario(String name, Config config, Step... steps) {
        return Arguments.argumentSet(name, name, config, Arrays.asList(steps));
    }

    static final Config ONE = config(pool("default", "10.0.0.0/24"));

    static Stream<Arguments> scenarios() {
        return Stream.of(
                scenario(
                        "same IP after restart: restore before assigning",
                        ONE,
                        restore(svc("default/b"), status("10.0.0.5"), gets("default", "10.0.0.5")),
                        restore(svc("default/c"), status("10.0.0.0"), gets("default", "10.0.0.0")),
                        assign(svc("default/a"), gets("default", "10.0.0.1")),
                        assign(svc("default/b"), gets("default", "10.0.0.5")),
                        assign(svc("default/c"), gets("default", "10.0.0.0")),
                        usage("default", 256, 3)),
                scenario(
                        "restore of an address no pool has gives nothing; assign then allocates",
                        ONE,
                        restore(svc("default/a"), status("192.168.1.1"), null),
                        holds("default/a", null),
                        assign(svc("default/a"), gets("default", "10.0.0.0"))),
                scenario(
                        "restore of an address held by an incompatible Service gives nothing",
                        ONE,
                        restore(svc("default/a"), status("10.0.0.5"), gets("default", "10.0.0.5")),
                        restore(svc("default/b"), status("10.0.0.5"), null),
                        usage("default", 256, 1)),
                scenario(
                        "restore of a shared address with a compatible Service",
                        ONE,
                        restore(svc("default/a").sharing("k"), status("10.0.0.5"), gets("default", "10.0.0.5")),
                        restore(
                                svc("default/b").sharing("k").ports("443/TCP"),
                                status("10.0.0.5"),
                                gets("default", "10.0.0.5")),
                        usage("default", 256, 1)),
                scenario(
                        "restore honours a requested IP that differs from the status",
                        ONE,
                        restore(svc("default/a").ips("10.0.0.7"), status("10.0.0.5"), null),
                        assign(svc("default/a").ips("10.0.0.7"), gets("default", "10.0.0.7"))),
                scenario(
                        "restore refuses a pool reserved for other namespaces",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").namespaces("team")),
                        restore(svc("default/a"), status("10.0.2.3"), null),
                        restore(svc("team/a"), status("10.0.2.3"), gets("z", "10.0.2.3"))),
                scenario(
                        "restore refuses an address avoidBuggyIPs forbids",
                        config(pool("default", "10.0.0.0/24").avoidBuggyIPs()),
                        restore(svc("default/a"), status("10.0.0.0"), null)),
                scenario(
                        "restore refuses a family the Service no longer has",
                        config(pool("d", "10.0.0.0/24", "fd00::/120")),
                        restore(svc("default/a"), status("10.0.0.3", "fd00::3"), null),
                        restore(
                                svc("default/a").preferDual(),
                                status("fd00::3", "10.0.0.3"),
                                gets("d", "10.0.0.3", "fd00::3"))),
                scenario(
                        "restore never adds an address; the next assign may",
                        config(pool("d", "10.0.0.0/24", "fd00::/120")),
                        restore(svc("default/a").preferDual(), status("10.0.0.3"), gets("d", "10.0.0.3")),
                        restore(svc("default/a").preferDual(), status("10.0.0.3"), gets("d", "10.0.0.3")),
                        assign(svc("default/a").preferDual(), gets("d", "10.0.0.3", "fd00::"))),
                scenario(
                        "restore with other addresses than held replaces what is held",
                        ONE,
                        assign(svc("default/a"), gets("default", "10.0.0.0")),
                        restore(svc("default/a"), status("10.0.0.9"), gets("default", "10.0.0.9")),
                        usage("default", 256, 1),
                        assign(svc("default/b"), gets("default", "10.0.0.0"))),
                scenario(
                        "restore claims an address of an autoAssign: false pool",
                        config(pool("m", "10.0.0.0/24").manual()),
                        restore(svc("default/a"), status("10.0.0.9"), gets("m", "10.0.0.9")),
                        assign(svc("default/a"), gets("m", "10.0.0.9"))),
                scenario(
                        "reallocate after deleting a pool",
                        config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24")),
                        assign(svc("default/x"), gets("a", "10.0.1.0")),
                        assign(svc("default/y").pool("b"), gets("b", "10.0.2.0")),
                        reconfigure(config(pool("b", "10.0.2.0/24")), "default/x"),
                        holds("default/x", null),
                        holds("default/y", gets("b", "10.0.2.0")),
                        assign(svc("default/x"), gets("b", "10.0.2.1"))),
                scenario(
                        "remove all pools",
                        ONE,
                        assign(svc("default/x"), gets("default", "10.0.0.0")),
                        assign(svc("default/y"), gets("default", "10.0.0.1")),
                        reconfigure(Config.EMPTY, "default/x", "default/y"),
                        assign(svc("default/x"), fails(FailureReason.NO_POOLS, "no address pool is configured")),
                        reconfigure(ONE),
                        assign(svc("default/y"), gets("default", "10.0.0.0"))),
                scenario(
                        "a renamed pool keeps its Services' addresses",
                        ONE,
                        assign(svc("default/x"), gets("default", "10.0.0.0")),
                        reconfigure(config(pool("renamed", "10.0.0.0/24"))),
                        holds("default/x", gets("renamed", "10.0.0.0")),
                        usage("renamed", 256, 1),
                        assign(svc("default/x"), gets("renamed", "10.0.0.0"))),
                scenario(
                        "a shrunk pool releases only what left it",
                        ONE,
                        assign(svc("default/x"), gets("default", "10.0.0.0")),
                        assign(svc("default/y").ips("10.0.0.200"), gets("default", "10.0.0.200")),
                        reconfigure(config(pool("default", "10.0.0.0/25")), "default/y"),
                        holds("default/x", gets("default", "10.0.0.0")),
                        assign(
                                svc("default/y").ips("10.0.0.200"),
                                fails(
                                        FailureReason.IP_NOT_IN_POOL,
                                        "requested IP 10.0.0.200 is not in any address pool"))),
                scenario(
                        "avoidBuggyIPs turned on releases .0",
                        ONE,
                        assign(svc("default/x"), gets("default", "10.0.0.0")),
                        assign(svc("default/y"), gets("default", "10.0.0.1")),
                        reconfigure(config(pool("default", "10.0.0.0/24").avoidBuggyIPs()), "default/x"),
                        assign(svc("default/x"), gets("default", "10.0.0.2")),
                        usage("default", 254, 2)),
                scenario(
                        "a serviceAllocation that no longer selects releases",
                        config(pool("a", "10.0.1.0/24")),
                        assign(svc("team/x"), gets("a", "10.0.1.0")),
                        reconfigure(
                                config(pool("a", "10.0.1.0/24").namespaces("other"), pool("b", "10.0.2.0/24")),
                                "team/x"),
                        assign(svc("team/x"), gets("b", "10.0.2.0"))),
                scenario(
                        "reallocating moves a Service to its new pinned pool only when it must",
                        config(pool("a", "10.0.1.0/24")),
                        assign(svc("team/x"), gets("a", "10.0.1.0")),
                        reconfigure(config(
                                pool("a", "10.0.1.0/24"),
                                pool("b", "10.0.2.0/24").namespaces("team"))),
                        assign(svc("team/x"), gets("a", "10.0.1.0")),
                        assign(svc("team/y"), gets("b", "10.0.2.0"))),
                scenario(
                        "sharing reconsidered when conditions change",
                        ONE,
                        assign(svc("default/a").sharing("k"), gets("default", "10.0.0.0")),
                        assign(svc("default/b").sharing("k").ports("443/TCP"), gets("default", "10.0.0.0")),
                        usage("default", 256, 1),
                        // b now uses port 80 too: it may no longer share with a, so it moves
                        assign(svc("default/b").sharing("k").ports("80/TCP"), gets("default", "10.0.0.1")),
                        holds("default/a", gets("default", "10.0.0.0")),
                        usage("default", 256, 2),
                        // and back to a compatible port: it may share again (a's address preferred)
                        release("default/b"),
                        assign(svc("default/b").sharing("k").ports("8080/TCP"), gets("default", "10.0.0.0")),
                        // a turns Local: no longer compatible with b, so a moves on its next assign
                        assign(svc("default/a").sharing("k").local(), gets("default", "10.0.0.1")),
                        holds("default/b", gets("default", "10.0.0.0"))),
                scenario(
                        "sharing key dropped: the Service moves off the shared address",
                        ONE,
                        assign(svc("default/a").sharing("k"), gets("default", "10.0.0.0")),
                        assign(svc("default/b").sharing("k").ports("443/TCP"), gets("default", "10.0.0.0")),
                        assign(svc("default/b").ports("443/TCP"), gets("default", "10.0.0.1"))),
                scenario(
                        "sharing key changed by the only holder keeps the address",
                        ONE,
                        assign(svc("default/a").sharing("k1"), gets("default", "10.0.0.0")),
                        assign(svc("default/a").sharing("k2"), gets("default", "10.0.0.0")),
                        assign(svc("default/b").sharing("k2").ports("443/TCP"), gets("default", "10.0.0.0")),
                        assign(svc("default/c").sharing("k1").ports("443/TCP"), gets("default", "10.0.0.1"))),
                scenario(
                        "/32 pool exhausted, then a release lets another Service in",
                        config(pool("one", "10.0.0.1/32")),
                        assign(svc("default/a"), gets("one", "10.0.0.1")),
                        assign(
                                svc("default/b"),
                                fails(
                                        FailureReason.POOL_EXHAUSTED,
                                        "pool \"one\" has no free address (1 of 1 in use)")),
                        release("default/a"),
                        usage("one", 1, 0),
                        assign(svc("default/b"), gets("one", "10.0.0.1"))),
                scenario(
                        "released addresses are reused lowest first",
                        ONE,
                        assign(svc("default/a"), gets("default", "10.0.0.0")),
                        assign(svc("default/b"), gets("default", "10.0.0.1")),
                        assign(svc("default/c"), gets("default", "10.0.0.2")),
                        release("default/b"),
                        release("default/a"),
                        assign(svc("default/d"), gets("default", "10.0.0.0")),
                        assign(svc("default/e"), gets("default", "10.0.0.1")),
                        assign(svc("default/f"), gets("default", "10.0.0.3"))),
                scenario(
                        "a changed requested IP moves the Service and frees the old one",
                        ONE,
                        assign(svc("default/a").ips("10.0.0.5"), gets("default", "10.0.0.5")),
                        assign(svc("default/a").ips("10.0.0.6"), gets("default", "10.0.0.6")),
                        assign(svc("default/b").ips("10.0.0.5"), gets("default", "10.0.0.5"))),
                scenario(
                        "a failed reassignment leaves the Service holding nothing",
                        ONE,
                        assign(svc("default/a"), gets("default", "10.0.0.0")),
                        assign(svc("default/b"), gets("default", "10.0.0.1")),
                        assign(
                                svc("default/a").ips("10.0.0.1"),
                                fails(
                                        FailureReason.IP_IN_USE,
                                        "requested IP 10.0.0.1 is in use by default/b, which does not allow sharing with"
                                                + " this Service (it has no allow-shared-ip key)")),
                        holds("default/a", null),
                        usage("default", 256, 1)),
                scenario(
                        "a changed requested pool moves the Service",
                        config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24")),
                        assign(svc("default/x"), gets("a", "10.0.1.0")),
                        assign(svc("default/x").pool("b"), gets("b", "10.0.2.0")),
                        usage("a", 256, 0)),
                scenario(
                        "changed Service labels move it out of a pinned pool",
                        config(
                                pool("a", "10.0.1.0/24"),
                                pool("z", "10.0.2.0/24").serviceSelector("lb=z")),
                        assign(svc("default/x").labels("lb=z"), gets("z", "10.0.2.0")),
                        assign(svc("default/x").labels("lb=other"), gets("a", "10.0.1.0"))),
                scenario(
                        "by namespace with labels, two namespaces, priorities",
                        config(
                                pool("first", "10.0.1.0/24").priority(10).namespaceSelector("team=one"),
                                pool("second", "10.0.2.0/24").priority(10).namespaceSelector("team=two"),
                                pool("top", "10.0.3.0/24").priority(5).namespaceSelector("vip=yes")),
                        assign(svc("ns1/a").namespaceLabels("team=one"), gets("first", "10.0.1.0")),
                        assign(svc("ns2/a").namespaceLabels("team=two"), gets("second", "10.0.2.0")),
                        assign(svc("ns3/a").namespaceLabels("team=one", "vip=yes"), gets("top", "10.0.3.0"))),
                scenario(
                        "PreferDualStack: additional IP when the pool becomes dual-stack",
                        config(pool("p", "10.0.0.0/24")),
                        assign(svc("default/a").preferDual(), gets("p", "10.0.0.0")),
                        reconfigure(config(pool("p", "10.0.0.0/24", "fd00::/120"))),
                        assign(svc("default/a").preferDual(), gets("p", "10.0.0.0", "fd00::"))),
                scenario(
                        "PreferDualStack: no jump to a dual-stack pool that appears",
                        config(pool("a", "10.0.1.0/24")),
                        assign(svc("default/x").preferDual(), gets("a", "10.0.1.0")),
                        reconfigure(config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24", "fd00::/120"))),
                        assign(svc("default/x").preferDual(), gets("a", "10.0.1.0"))),
                scenario(
                        "PreferDualStack to RequireDualStack on a single-stack pool fails, and back",
                        config(pool("a", "10.0.1.0/24")),
                        assign(svc("default/x").preferDual(), gets("a", "10.0.1.0")),
                        assign(
                                svc("default/x").requireDual(),
                                fails(
                                        FailureReason.FAMILY_UNAVAILABLE,
                                        "RequireDualStack needs an IPv4 and an IPv6 address from one pool, but no pool for"
                                                + " this Service has both families (pool \"a\" has only IPv4)")),
                        assign(svc("default/x").preferDual(), gets("a", "10.0.1.0"))),
                scenario(
                        "SingleStack to RequireDualStack gains the second family",
                        config(pool("d", "10.0.0.0/24", "fd00::/120")),
                        assign(svc("default/x"), gets("d", "10.0.0.0")),
                        assign(svc("default/x").requireDual(), gets("d", "10.0.0.0", "fd00::")),
                        assign(svc("default/x"), gets("d", "10.0.0.0"))),
                scenario(
                        "dual-stack pool becomes single-stack: the Service goes to another dual-stack pool",
                        config(pool("a", "10.0.1.0/24", "fd00:1::/120"), pool("b", "10.0.2.0/24", "fd00:2::/120")),
                        assign(svc("default/x").preferDual(), gets("a", "10.0.1.0", "fd00:1::")),
                        reconfigure(
                                config(pool("a", "10.0.1.0/24"), pool("b", "10.0.2.0/24", "fd00:2::/120")),
                                "default/x"),
                        assign(svc("default/x").preferDual(), gets("b", "10.0.2.0", "fd00:2::"))),
                scenario(
                        "usage: shared addresses counted once, avoidBuggyIPs excluded",
                        config(pool("p", "10.0.0.0/23").avoidBuggyIPs(), pool("v6", "fd00::/64")),
                        usage("p", 508, 0),
                        usage("v6", Long.MAX_VALUE, 0),
                        assign(svc("default/a").sharing("k"), gets("p", "10.0.0.1")),
                        assign(svc("default/b").sharing("k").ports("443/TCP"), gets("p", "10.0.0.1")),
                        assign(svc("default/c").v6(), gets("v6", "fd00::")),
                        usage("p", 508, 1),
                        usage("v6", Long.MAX_VALUE, 1),
                        release("default/a"),
                        usage("p", 508, 1),
                        release("default/b"),
                        usage("p", 508, 0)),
                scenario(
                        "release of a Service holding nothing is harmless",
                        ONE,
                        release("default/nobody"),
                        usage("default", 256, 0)));
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void runs(String name, Config config, List<Step> steps) {
        Allocator allocator = new Allocator(config);
        int index = 0;
        for (Step step : steps) {
            String at = name + ", step " + (++index) + ": " + step;
            switch (step) {
                case Assign(Svc svc, Expect expect) -> {
                    Optional<Assignment> held =
                            allocator.assignmentOf(svc.build().service());
                    Outcome outcome = allocator.assign(svc.build());
                    switch (expect) {
                        case Gets g ->
                            assertThat(outcome)
                                    .as(at)
                                    .isEqualTo(new Outcome.Assigned(
                                            assignment(svc, g), !held.equals(Optional.of(assignment(svc, g)))));
                        case Fails(FailureReason reason, String message) -> {
                            assertThat(outcome).as(at).isEqualTo(new Outcome.Failed(reason, message));
                            assertThat(allocator.assignmentOf(svc.build().service()))
                                    .as(at)
                                    .isEmpty();
                        }
                    }
                }
                case Release(String service) -> allocator.release(key(service));
                case Restore(Svc svc, List<String> status, Gets expect) ->
                    assertThat(allocator.restore(svc.build(), ips(status.toArray(String[]::new))))
                            .as(at)
                            .isEqualTo(Optional.ofNullable(expect).map(g -> assignment(svc, g)));
                case Reconfigure(Config next, Set<String> released) ->
                    assertThat(allocator.reconfigure(next).stream()
                                    .map(ServiceKey::toString)
                                    .collect(Collectors.toSet()))
                            .as(at)
                            .isEqualTo(released);
                case Holds(String service, Gets expect) ->
                    assertThat(allocator.assignmentOf(key(service)))
                            .as(at)
                            .isEqualTo(Optional.ofNullable(expect)
                                    .map(g -> new Assignment(
                                            key(service), g.pool(), ips(g.ips().toArray(String[]::new)))));
                case Usage(String pool, long total, long inUse) ->
                    assertThat(allocator.usage()).as(at).contains(new PoolUsage(pool, total, inUse));
            }
        }
    }

    private static Assignment assignment(Svc svc, Gets g) {
        return new Assignment(svc.build().service(), g.pool(), ips(g.ips().toArray(String[]::new)));
    }
}

package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.config;
import static io.lbk8s.ipam.Fixtures.ip;
import static io.lbk8s.ipam.Fixtures.ips;
import static io.lbk8s.ipam.Fixtures.key;
import static io.lbk8s.ipam.Fixtures.pool;
import static io.lbk8s.ipam.Fixtures.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.config.Config;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Allocator#assign} says whether what the Service holds changed: the controller relies on it, not asking. */
class AllocatorChangedTest {

    static final Config ONE_POOL = config(pool("p", "10.0.0.0/30"));
    static final Config TWO_POOLS = config(pool("p", "10.0.0.0/30"), pool("q", "10.0.1.0/30"));
    /** Room for one dual-stack Service only: a second PreferDualStack one gets IPv4 alone. */
    static final Config ONE_V6 = config(pool("d", "10.0.0.0/30", "fd00::/128"));

    static Arguments when(
            String name,
            Config config,
            Consumer<Allocator> before,
            Fixtures.Svc request,
            String pool,
            List<String> ips,
            boolean changed) {
        return Arguments.of(name, config, before, request, pool, ips, changed);
    }

    static Consumer<Allocator> assigned(Fixtures.Svc... services) {
        return allocator -> Stream.of(services).forEach(s -> allocator.assign(s.build()));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                when("a Service holding nothing", ONE_POOL, assigned(), svc("ns/a"), "p", List.of("10.0.0.0"), true),
                when(
                        "the same request again",
                        ONE_POOL,
                        assigned(svc("ns/a")),
                        svc("ns/a"),
                        "p",
                        List.of("10.0.0.0"),
                        false),
                when(
                        "new labels its pool still allows",
                        ONE_POOL,
                        assigned(svc("ns/a")),
                        svc("ns/a").labels("tier=web"),
                        "p",
                        List.of("10.0.0.0"),
                        false),
                when(
                        "a sharing key added, the address kept",
                        ONE_POOL,
                        assigned(svc("ns/a")),
                        svc("ns/a").sharing("k"),
                        "p",
                        List.of("10.0.0.0"),
                        false),
                when(
                        "another address requested",
                        ONE_POOL,
                        assigned(svc("ns/a")),
                        svc("ns/a").ips("10.0.0.2"),
                        "p",
                        List.of("10.0.0.2"),
                        true),
                when(
                        "another pool requested",
                        TWO_POOLS,
                        assigned(svc("ns/a")),
                        svc("ns/a").pool("q"),
                        "q",
                        List.of("10.0.1.0"),
                        true),
                when(
                        "the pool it requested, which it already holds",
                        TWO_POOLS,
                        assigned(svc("ns/a")),
                        svc("ns/a").pool("p"),
                        "p",
                        List.of("10.0.0.0"),
                        false),
                when(
                        "its address excluded since",
                        ONE_POOL,
                        assigned(svc("ns/a"))
                                .andThen(allocator -> allocator.exclude(ExcludedAddresses.builder()
                                        .add(ip("10.0.0.0"), "gateway of node a")
                                        .build())),
                        svc("ns/a"),
                        "p",
                        List.of("10.0.0.1"),
                        true),
                when(
                        "PreferDualStack gets the family it lacked",
                        ONE_V6,
                        assigned(svc("ns/b").preferDual(), svc("ns/a").preferDual())
                                .andThen(allocator -> allocator.release(key("ns/b"))),
                        svc("ns/a").preferDual(),
                        "d",
                        List.of("10.0.0.1", "fd00::"),
                        true),
                when(
                        "restored from its status, then assigned",
                        ONE_POOL,
                        allocator -> allocator.restore(svc("ns/a").build(), ips("10.0.0.3")),
                        svc("ns/a"),
                        "p",
                        List.of("10.0.0.3"),
                        false));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void says(
            String name,
            Config config,
            Consumer<Allocator> before,
            Fixtures.Svc request,
            String pool,
            List<String> ips,
            boolean changed) {
        Allocator allocator = new Allocator(config);
        before.accept(allocator);
        Assignment expected = new Assignment(request.build().service(), pool, ips(ips.toArray(String[]::new)));

        assertThat(allocator.assign(request.build())).as(name).isEqualTo(new Outcome.Assigned(expected, changed));
        assertThat(allocator.assignmentOf(expected.service())).as(name).contains(expected);
        assertThat(allocator.assign(request.build()))
                .as(name + " (again)")
                .isEqualTo(new Outcome.Assigned(expected, false));
    }
}

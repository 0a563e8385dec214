package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.config;
import static io.lbk8s.ipam.Fixtures.pool;
import static io.lbk8s.ipam.Fixtures.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.ipam.Fixtures.Svc;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random assign / release / restore / reconfigure sequences (fixed seeds, bounded), checking after every step:
 * no address is held by two Services that may not share; usage equals the assignments; every assigned address is
 * usable in its pool; a Service holds at most one address per family.
 */
class AllocatorPropertyTest {

    static final List<Config> CONFIGS = List.of(
            config(
                    pool("small", "10.0.0.250-10.0.1.4").avoidBuggyIPs(),
                    pool("dual", "10.1.0.0/29", "fd00::/125"),
                    pool("manual", "10.2.0.0/30").manual(),
                    pool("team", "10.3.0.0/30").namespaces("team").priority(3),
                    pool("labelled", "10.4.0.0/30").serviceSelector("lb=yes")),
            config(
                    pool("small", "10.0.0.250-10.0.1.1"),
                    pool("dual", "10.1.0.0/30", "fd00::/126"),
                    pool("v6", "fd01::/64"),
                    pool("team", "10.3.0.0/29").namespaceSelector("kind=team")),
            config(pool("renamed", "10.0.0.250-10.0.1.4").avoidBuggyIPs(), pool("dual", "10.1.0.0/29", "fd00::/125")),
            Config.EMPTY);

    static Stream<Arguments> seeds() {
        return Stream.of(1L, 2L, 3L, 42L, 1234L).map(s -> Arguments.argumentSet("seed " + s, s));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void invariantsHold(long seed) {
        Random random = new Random(seed);
        Allocator allocator = new Allocator(CONFIGS.getFirst());
        Config current = CONFIGS.getFirst();
        Map<ServiceKey, AllocationRequest> last = new HashMap<>();
        int assigned = 0;
        int shared = 0;
        int failed = 0;
        for (int step = 0; step < 3000; step++) {
            int op = random.nextInt(100);
            if (op < 60) {
                AllocationRequest r = randomRequest(random, current);
                last.put(r.service(), r);
                if (allocator.assign(r) instanceof Outcome.Assigned(Assignment a, var _)) {
                    assigned++;
                    shared += allocator.holdersOf(a.ips().getFirst()).size() > 1 ? 1 : 0;
                } else {
                    failed++;
                }
            } else if (op < 80) {
                allocator.release(randomKey(random));
            } else if (op < 95) {
                AllocationRequest r = randomRequest(random, current);
                last.put(r.service(), r);
                Config now = current;
                List<IpAddress> status = allocator
                        .assignmentOf(r.service())
                        .map(Assignment::ips)
                        .orElseGet(() -> randomIps(random, now));
                allocator.release(r.service());
                allocator.restore(r, status);
            } else {
                current = CONFIGS.get(random.nextInt(CONFIGS.size()));
                Set<ServiceKey> released = allocator.reconfigure(current);
                for (ServiceKey k : released) {
                    assertThat(allocator.assignmentOf(k)).isEmpty();
                }
            }
            check(allocator, current, last, "seed " + seed + " step " + step);
        }
        // the run is not vacuous: it assigned, shared and failed plenty
        assertThat(assigned).isGreaterThan(500);
        assertThat(shared).isGreaterThan(50);
        assertThat(failed).isGreaterThan(50);
    }

    private static void check(Allocator allocator, Config config, Map<ServiceKey, AllocationRequest> last, String at) {
        Map<IpAddress, List<ServiceKey>> byIp = new HashMap<>();
        Map<String, Set<IpAddress>> byPool = new HashMap<>();
        for (Assignment a : allocator.assignments().values()) {
            AddressPool pool = config.pool(a.pool()).orElseThrow(() -> new AssertionError(at + ": no pool " + a));
            assertThat(a.ips()).as(at).isNotEmpty().hasSizeLessThanOrEqualTo(2);
            if (a.ips().size() == 2) {
                assertThat(a.ips().get(0).family()).as(at).isEqualTo(IpFamily.IPv4);
                assertThat(a.ips().get(1).family()).as(at).isEqualTo(IpFamily.IPv6);
            }
            assertThat(PoolSelection.allows(pool, last.get(a.service())))
                    .as(at + " allowed " + a)
                    .isTrue();
            for (IpAddress ip : a.ips()) {
                assertThat(pool.contains(ip) && !pool.forbids(ip))
                        .as(at + ": " + a)
                        .isTrue();
                byIp.computeIfAbsent(ip, _ -> new ArrayList<>()).add(a.service());
                byPool.computeIfAbsent(a.pool(), _ -> new HashSet<>()).add(ip);
            }
        }
        for (var e : byIp.entrySet()) {
            List<ServiceKey> holders = e.getValue();
            assertThat(new HashSet<>(allocator.holdersOf(e.getKey()))).as(at).isEqualTo(new HashSet<>(holders));
            for (int i = 0; i < holders.size(); i++) {
                for (int j = i + 1; j < holders.size(); j++) {
                    String problem = Sharing.problem(last.get(holders.get(i)), last.get(holders.get(j)));
                    assertThat(problem)
                            .as(at + ": " + e.getKey() + " held by " + holders)
                            .isNull();
                }
            }
        }
        for (PoolUsage u : allocator.usage()) {
            assertThat(u.inUse())
                    .as(at + " " + u)
                    .isEqualTo(byPool.getOrDefault(u.pool(), Set.of()).size());
        }
        assertThat(allocator.usage())
                .extracting(PoolUsage::pool)
                .containsExactlyElementsOf(
                        config.pools().stream().map(AddressPool::name).toList());
    }

    private static final String[] NAMESPACES = {"default", "team", "other"};

    private static ServiceKey randomKey(Random random) {
        return new ServiceKey(NAMESPACES[random.nextInt(NAMESPACES.length)], "s" + random.nextInt(12));
    }

    private static AllocationRequest randomRequest(Random random, Config config) {
        ServiceKey key = randomKey(random);
        Svc s = svc(key.toString());
        if (random.nextInt(3) == 0) {
            s.labels("lb=yes");
        }
        if (key.namespace().equals("team") || random.nextInt(4) == 0) {
            s.namespaceLabels("kind=team");
        }
        switch (random.nextInt(6)) {
            case 0 -> s.v6();
            case 1 -> s.preferDual();
            case 2 -> s.requireDual();
            case 3 -> s.families();
            default -> {}
        }
        if (random.nextInt(3) > 0) {
            s.sharing(random.nextBoolean() ? "k1" : "k2");
        }
        s.ports(random.nextBoolean() ? "80/TCP" : "443/TCP", random.nextBoolean() ? "53/UDP" : "53/TCP");
        if (random.nextInt(4) == 0) {
            s.local(random.nextBoolean() ? "app=a" : "app=b");
        }
        if (random.nextInt(8) == 0) {
            s.pool(random.nextBoolean() ? "manual" : "dual");
        }
        if (random.nextInt(6) == 0) {
            List<IpAddress> ips = randomIps(random, config);
            if (!ips.isEmpty()) {
                s.ips(ips.stream().map(IpAddress::toString).toArray(String[]::new));
            }
        }
        return s.build();
    }

    private static List<IpAddress> randomIps(Random random, Config config) {
        List<IpAddress> all = new ArrayList<>();
        for (AddressPool p : config.pools()) {
            for (var r : p.ranges()) {
                for (long i = 0; i < Math.min(r.size(), 12); i++) {
                    all.add(r.at(i).orElseThrow());
                }
            }
        }
        all.add(Fixtures.ip("192.168.0.1"));
        IpAddress one = all.get(random.nextInt(all.size()));
        if (random.nextInt(4) == 0) {
            IpAddress two = all.get(random.nextInt(all.size()));
            return one.equals(two) ? List.of(one) : List.of(one, two);
        }
        return List.of(one);
    }
}

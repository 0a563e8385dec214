package io.lbk8s.ipam;

import static io.lbk8s.ipam.Fixtures.config;
import static io.lbk8s.ipam.Fixtures.ip;
import static io.lbk8s.ipam.Fixtures.ips;
import static io.lbk8s.ipam.Fixtures.key;
import static io.lbk8s.ipam.Fixtures.pool;
import static io.lbk8s.ipam.Fixtures.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The allocator never hands out an excluded address, and loses nothing else when the excluded set changes. */
class AllocatorExclusionTest {
    static final ExcludedAddresses NODE_AND_GATEWAY = ExcludedAddresses.builder()
            .add(ip("10.0.0.1"), "gateway of node a")
            .add(ip("10.0.0.2"), "InternalIP of node a")
            .build();

    static List<IpAddress> assigned(Outcome outcome) {
        assertThat(outcome).isInstanceOf(Outcome.Assigned.class);
        return ((Outcome.Assigned) outcome).assignment().ips();
    }

    private static Outcome.Failed failed(Outcome outcome) {
        assertThat(outcome).isInstanceOf(Outcome.Failed.class);
        return (Outcome.Failed) outcome;
    }

    @Test
    void newAssignmentsSkipExcludedAddresses() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.0.1-10.0.0.4")));
        allocator.exclude(NODE_AND_GATEWAY);

        assertThat(assigned(allocator.assign(svc("ns/a").build()))).isEqualTo(ips("10.0.0.3"));
        assertThat(assigned(allocator.assign(svc("ns/b").build()))).isEqualTo(ips("10.0.0.4"));
        Outcome.Failed full = failed(allocator.assign(svc("ns/c").build()));
        assertThat(full.reason()).isEqualTo(FailureReason.POOL_EXHAUSTED);
        assertThat(full.message())
                .isEqualTo("pool \"p\" has no free address (2 of 2 in use; 2 more not given to any"
                        + " Service: 10.0.0.1 (gateway of node a), 10.0.0.2 (InternalIP of node a))");
        assertThat(allocator.usage()).containsExactly(new PoolUsage("p", 2, 2, 2));
    }

    @Test
    void aPoolOfOnlyExcludedAddressesSaysSo() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.0.1-10.0.0.5")));
        allocator.exclude(ExcludedAddresses.builder()
                .add(ip("10.0.0.1"), "r1")
                .add(ip("10.0.0.2"), "r2")
                .add(ip("10.0.0.3"), "r3")
                .add(ip("10.0.0.4"), "r4")
                .add(ip("10.0.0.5"), "r5")
                .build());

        assertThat(failed(allocator.assign(svc("ns/a").build())).message())
                .isEqualTo(
                        "pool \"p\" has no free address"
                                + " (0 of 0 in use; 5 more not given to any Service: 10.0.0.1 (r1), 10.0.0.2 (r2), 10.0.0.3 (r3) and 2 more)");
    }

    @Test
    void aRequestForAnExcludedAddressIsRefusedWithWhy() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.0.0/24")));
        allocator.exclude(NODE_AND_GATEWAY);

        Outcome.Failed refused =
                failed(allocator.assign(svc("ns/a").ips("10.0.0.2").build()));

        assertThat(refused.reason()).isEqualTo(FailureReason.IP_EXCLUDED);
        assertThat(refused.message())
                .isEqualTo("requested IP 10.0.0.2 is not given to any Service: it is taken (InternalIP of node a)");
        assertThat(allocator.restore(svc("ns/a").build(), ips("10.0.0.1"))).isEmpty();
    }

    @Test
    void anAddressThatBecomesExcludedReleasesOnlyItsHolders() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.0.1-10.0.0.10")));
        assertThat(assigned(allocator.assign(svc("ns/a").build()))).isEqualTo(ips("10.0.0.1"));
        assertThat(assigned(allocator.assign(svc("ns/b").build()))).isEqualTo(ips("10.0.0.2"));
        assertThat(assigned(allocator.assign(svc("ns/c").ips("10.0.0.5").build())))
                .isEqualTo(ips("10.0.0.5"));

        var released = allocator.exclude(ExcludedAddresses.builder()
                .add(ip("10.0.0.1"), "gateway of node a")
                .add(ip("10.0.0.5"), "InternalIP of node b")
                .build());

        assertThat(released).containsExactlyInAnyOrder(key("ns/a"), key("ns/c"));
        assertThat(allocator.assignmentOf(key("ns/b")).orElseThrow().ips()).isEqualTo(ips("10.0.0.2"));
        // the one that did not ask moves; the one that asked is told why it cannot have it
        assertThat(assigned(allocator.assign(svc("ns/a").build()))).isEqualTo(ips("10.0.0.3"));
        assertThat(failed(allocator.assign(svc("ns/c").ips("10.0.0.5").build())).reason())
                .isEqualTo(FailureReason.IP_EXCLUDED);
        // the same set built anew (every Node heartbeat recomputes it) changes nothing
        ExcludedAddresses again = ExcludedAddresses.builder()
                .add(ip("10.0.0.5"), "InternalIP of node b")
                .add(ip("10.0.0.1"), "gateway of node a")
                .build();
        assertThat(allocator.exclude(again)).isEmpty();
        assertThat(allocator.assignmentOf(key("ns/a")).orElseThrow().ips()).isEqualTo(ips("10.0.0.3"));
    }

    @Test
    void anAddressNoLongerExcludedIsFreeAgain() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.0.1-10.0.0.2")));
        allocator.exclude(NODE_AND_GATEWAY);
        assertThat(failed(allocator.assign(svc("ns/a").build())).reason()).isEqualTo(FailureReason.POOL_EXHAUSTED);

        allocator.exclude(ExcludedAddresses.NONE);

        assertThat(assigned(allocator.assign(svc("ns/a").build()))).isEqualTo(ips("10.0.0.1"));
        assertThat(allocator.usage()).containsExactly(new PoolUsage("p", 2, 1, 0));
    }

    @Test
    void exclusionsOutsideEveryPoolChangeNothing() {
        Allocator allocator = new Allocator(config(pool("p", "10.0.1.0/24")));
        allocator.exclude(NODE_AND_GATEWAY);

        assertThat(assigned(allocator.assign(svc("ns/a").build()))).isEqualTo(ips("10.0.1.0"));
        assertThat(allocator.excludedIn("p")).isEmpty();
        assertThat(allocator.usage()).containsExactly(new PoolUsage("p", 256, 1, 0));
    }
}

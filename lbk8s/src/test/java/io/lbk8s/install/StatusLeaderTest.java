package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.lbk8s.install.StatusReport.LeaseRead;
import io.lbk8s.kube.ClusterNames;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which controller {@code lbk8s status} says leads: the holder of a Lease renewed within its duration, by the CLI's clock. */
class StatusLeaderTest {
    static final Instant NOW = Instant.parse("2026-01-01T10:00:00Z");

    record Case(String name, LeaseRead lease, String leader, String says) {}

    static LeaseRead lease(String holder, Integer durationSeconds, Instant renewed, Instant acquired) {
        return new LeaseRead.Found(new LeaseBuilder()
                .withNewMetadata()
                .withName(ClusterNames.CONTROLLER_LEASE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(durationSeconds)
                .withRenewTime(renewed == null ? null : ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC))
                .withAcquireTime(acquired == null ? null : ZonedDateTime.ofInstant(acquired, ZoneOffset.UTC))
                .endSpec()
                .build());
    }

    @Test
    void theLeaderIsTheHolderOfAFreshLease() {
        List<Case> cases = List.of(
                new Case(
                        "renewed 1 s ago, valid 3 s",
                        lease("c-1", 3, NOW.minusSeconds(1), null),
                        "c-1",
                        "renewed 1s ago"),
                new Case(
                        "renewed exactly its duration ago",
                        lease("c-1", 3, NOW.minusSeconds(3), null),
                        "c-1",
                        "renewed 3s ago"),
                new Case(
                        "one second past its duration",
                        lease("c-1", 3, NOW.minusSeconds(4), null),
                        "",
                        "c-1 last renewed the Lease 4s ago, longer than its 3s: it stopped or cannot reach the API server, "
                                + "and no standby took over"),
                new Case(
                        "long gone",
                        lease("c-1", 3, NOW.minusSeconds(600), null),
                        "",
                        "c-1 last renewed the Lease 10m ago, longer than its 3s: it stopped or cannot reach the API server, "
                                + "and no standby took over"),
                // the leader's clock ahead of this machine's: renewed "in the future", still fresh
                new Case(
                        "renewed ahead of this clock",
                        lease("c-1", 3, NOW.plusSeconds(2), null),
                        "c-1",
                        "renewed just now"),
                new Case(
                        "acquired, never renewed", lease("c-1", 3, null, NOW.minusSeconds(2)), "c-1", "renewed 2s ago"),
                new Case(
                        "released",
                        lease("", 3, NOW, null),
                        "",
                        "the Lease has no holder: the last leader stepped down"),
                new Case(
                        "no holder field",
                        lease(null, 3, NOW, null),
                        "",
                        "the Lease has no holder: the last leader stepped down"),
                new Case(
                        "no duration",
                        lease("c-1", null, NOW, null),
                        "",
                        "c-1 holds the Lease, but it has no renewTime or leaseDurationSeconds to judge it by"),
                new Case(
                        "no Lease",
                        new LeaseRead.Missing(),
                        "",
                        "no Lease lbk8s-controller: leader election is off (--leader-elect=false), or no controller has started"),
                new Case(
                        "forbidden",
                        new LeaseRead.Unreadable("no permission to get leases in lbk8s-system"),
                        "",
                        "the Lease lbk8s-controller could not be read: no permission to get leases in lbk8s-system"));
        for (Case c : cases) {
            assertThat(StatusReport.leader(c.lease(), NOW))
                    .as(c.name())
                    .isEqualTo(new StatusReport.Leadership(c.leader(), c.says()));
        }
    }
}

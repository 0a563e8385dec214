package io.lbk8s.election;

import static io.lbk8s.election.Candidate.QUICK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Candidates electing a leader on a Lease in the real kube-apiserver, with lease 1 s, renew deadline 700 ms, retry 100 ms. */
class LeaderElectionApiTest {
    static final Duration LEASE = QUICK.leaseDuration();
    static final Duration RETRY = QUICK.retryPeriod();
    static final Duration PATIENCE = Duration.ofSeconds(10);

    FreshApiServer server;
    final List<Candidate> started = new ArrayList<>();

    @BeforeEach
    void startServer() {
        server = FreshApiServer.start();
        server.ensureNamespace(Candidate.NAMESPACE);
    }

    @AfterEach
    void stopAll() {
        started.forEach(Candidate::close);
        server.close();
    }

    Candidate candidate(String name) {
        return candidate(name, Clock.systemUTC());
    }

    Candidate candidate(String name, Clock wallClock) {
        Candidate c = Candidate.start(server, name, wallClock);
        started.add(c);
        return c;
    }

    LeaseSpec lease() {
        return server.client()
                .leases()
                .inNamespace(Candidate.NAMESPACE)
                .withName(Candidate.LEASE)
                .get()
                .getSpec();
    }

    List<Candidate> leaders(List<Candidate> candidates) {
        return candidates.stream().filter(Candidate::leading).toList();
    }

    /** Between two readings of System.nanoTime(): the tests time what the candidates' callbacks recorded, not their polls. */
    static long millisBetween(long fromNanos, long toNanos) {
        return Duration.ofNanos(toNanos - fromNanos).toMillis();
    }

    @Test
    void exactlyOneOfThreeCandidatesLeadsAndAllNameIt() {
        List<Candidate> all = List.of(candidate("a"), candidate("b"), candidate("c"));
        await().atMost(PATIENCE).until(() -> leaders(all).size() == 1);
        // Over three lease durations, never two at once (a machine that stalls for longer than the renew deadline
        // may make the leader step down and lead again, which is right, so the test does not count terms).
        await().during(LEASE.multipliedBy(3))
                .atMost(LEASE.multipliedBy(4))
                .until(() -> leaders(all).size() <= 1);
        await().atMost(PATIENCE).until(() -> leaders(all).size() == 1);
        Candidate leader = leaders(all).getFirst();
        await().atMost(PATIENCE)
                .until(() -> leader.name.equals(lease().getHolderIdentity())
                        && all.stream().allMatch(c -> c.election.leader().equals(Optional.of(leader.name))));
        assertThat(leader.metrics()).contains("lbk8s_controller_leader 1.0");
        assertThat(all.stream().filter(c -> c != leader))
                .allSatisfy(c -> assertThat(c.metrics()).contains("lbk8s_controller_leader 0.0"));
    }

    @Test
    void aLeaderThatStopsCleanlyReleasesTheLeaseAndTheStandbyLeadsWithinAboutARetryPeriod() {
        Candidate a = candidate("a");
        await().atMost(PATIENCE).until(a::leading);
        Candidate b = candidate("b");
        await().atMost(PATIENCE).until(() -> b.election.leader().equals(Optional.of("a")));
        int transitions = lease().getLeaseTransitions();

        a.close();
        long closed = System.nanoTime();
        await().atMost(PATIENCE).until(b::leading);
        // Waiting out the lease would take 1 s; a released Lease is taken at the standby's next read.
        assertThat(millisBetween(closed, b.lastChange(true).orElseThrow())).isLessThan(RETRY.toMillis() + 400);
        assertThat(a.lastChange(false).orElseThrow())
                .isLessThan(b.lastChange(true).orElseThrow());
        assertThat(lease().getHolderIdentity()).isEqualTo("b");
        assertThat(lease().getLeaseTransitions()).isEqualTo(transitions + 1);
        assertThat(b.metrics())
                .contains("lbk8s_controller_leader 1.0")
                .contains("lbk8s_controller_leader_changes_total 1.0");
        assertThat(a.metrics()).contains("lbk8s_controller_leader 0.0");
    }

    @Test
    void aLeaderKilledWithoutReleasingIsReplacedOnceItsLeaseHasNotChangedForTheLeaseDuration() {
        Candidate a = candidate("a");
        await().atMost(PATIENCE).until(a::leading);
        Candidate b = candidate("b");
        await().atMost(PATIENCE).until(() -> b.election.leader().equals(Optional.of("a")));

        a.kill();
        long killed = System.nanoTime();
        LeaseSpec left = lease();
        assertThat(left.getHolderIdentity()).as("a kill does not release").isEqualTo("a");
        await().atMost(PATIENCE).until(b::leading);
        long takeover = millisBetween(killed, b.lastChange(true).orElseThrow());
        LeaseSpec taken = lease();
        long afterLastRenewal =
                Duration.between(left.getRenewTime(), taken.getAcquireTime()).toMillis();
        assertThat(taken.getHolderIdentity()).isEqualTo("b");
        assertThat(afterLastRenewal)
                .as("b took the Lease %d ms after a's last renewal", afterLastRenewal)
                .isGreaterThanOrEqualTo(LEASE.toMillis());
        assertThat(takeover)
                .as("b led %d ms after the kill", takeover)
                .isLessThanOrEqualTo(LEASE.multipliedBy(2).plus(RETRY).toMillis());
    }

    @Test
    void aLeaderThatCannotReachTheApiStopsLeadingWithinTheRenewDeadlineBeforeTheStandbyTakesOver() {
        Candidate a = candidate("a");
        await().atMost(PATIENCE).until(a::leading);
        Candidate b = candidate("b");
        await().atMost(PATIENCE).until(() -> b.election.leader().equals(Optional.of("a")));

        a.client.close(); // every request of a fails from now on; its election keeps running
        long cutOff = System.nanoTime();
        await().atMost(PATIENCE).until(() -> !a.leading());
        long stoppedAfter = millisBetween(cutOff, a.lastChange(false).orElseThrow());
        assertThat(stoppedAfter)
                .as("a stopped leading %d ms after losing the API", stoppedAfter)
                .isLessThanOrEqualTo(QUICK.renewDeadline().plus(RETRY).toMillis());
        await().atMost(PATIENCE).until(b::leading);
        assertThat(a.lastChange(false).orElseThrow())
                .as("a stopped before b started")
                .isLessThan(b.lastChange(true).orElseThrow());
        assertThat(a.metrics()).contains("lbk8s_controller_leader 0.0");
    }

    @Test
    void aLeaderWhoseRequestsHangStopsLeadingAtTheRenewDeadlineBeforeTheStandbyTakesOver() throws Exception {
        URI api = URI.create(server.url());
        try (var proxy = new StallingProxy(api.getPort())) {
            var throughProxy = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(server.config())
                            .withMasterUrl(api.getScheme() + "://" + api.getHost() + ":" + proxy.port() + "/")
                            .build())
                    .build();
            Candidate a = new Candidate(throughProxy, "a", Clock.systemUTC());
            started.add(a);
            a.election.start();
            await().atMost(PATIENCE).until(a::leading);
            Candidate b = candidate("b");
            await().atMost(PATIENCE).until(() -> b.election.leader().equals(Optional.of("a")));

            proxy.stall(); // a's requests get no answer (its client would wait longer than the lease)
            long cutOff = System.nanoTime();
            await().atMost(PATIENCE).until(() -> !a.leading());
            long stoppedAfter = millisBetween(cutOff, a.lastChange(false).orElseThrow());
            assertThat(stoppedAfter)
                    .as("a stopped leading %d ms after its requests began to hang", stoppedAfter)
                    .isLessThanOrEqualTo(QUICK.renewDeadline().plus(RETRY).toMillis());
            await().atMost(PATIENCE).until(b::leading);
            assertThat(a.lastChange(false).orElseThrow())
                    .as("a stopped before b started")
                    .isLessThan(b.lastChange(true).orElseThrow());
        }
    }

    @Test
    void twoWritesDecidedOnTheSameReadOfTheLeaseCannotBothSucceed() {
        var first = new LeaseApi(server.newClient(), Candidate.NAMESPACE, Candidate.LEASE, Clock.systemUTC(), LEASE);
        var second = new LeaseApi(server.newClient(), Candidate.NAMESPACE, Candidate.LEASE, Clock.systemUTC(), LEASE);
        first.hold(Optional.empty(), "a", true, 1);
        assertThatThrownBy(() -> second.hold(Optional.empty(), "b", true, 1))
                .as("create when it exists")
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(409));

        var read = first.read();
        first.hold(read, "a", false, 1);
        assertThatThrownBy(() -> second.hold(read, "b", true, 1))
                .as("update of a version someone else replaced")
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(409));
        assertThat(lease().getHolderIdentity()).isEqualTo("a");
    }

    @Test
    void aHolderWhoseClockIsAnHourBehindKeepsTheLeadWhileItRenews() {
        Candidate a = candidate("a", Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
        await().atMost(PATIENCE).until(a::leading);
        Candidate b = candidate("b", Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
        Candidate c = candidate("c");
        // To b the renewTime looks two hours old, to c one hour: neither may take over while a keeps renewing.
        await().during(LEASE.multipliedBy(3))
                .atMost(LEASE.multipliedBy(4))
                .until(() -> a.leading() && !b.leading() && !c.leading() && "a".equals(lease().getHolderIdentity()));
        assertThat(b.starts() + c.starts()).isZero();
    }

    @Test
    void aHolderWhoseClockIsAnHourAheadIsStillReplacedWhenItDies() {
        Candidate a = candidate("a", Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
        await().atMost(PATIENCE).until(a::leading);
        Candidate b = candidate("b");
        await().atMost(PATIENCE).until(() -> b.election.leader().equals(Optional.of("a")));

        a.kill();
        long killed = System.nanoTime();
        // Its renewTime is an hour in b's future; b goes by the Lease not changing any more.
        await().atMost(PATIENCE).until(b::leading);
        long takeover = millisBetween(killed, b.lastChange(true).orElseThrow());
        assertThat(takeover)
                .as("b led %d ms after the kill", takeover)
                .isBetween(
                        LEASE.minus(RETRY).toMillis(),
                        LEASE.multipliedBy(2).plus(RETRY).toMillis());
    }
}

package io.lbk8s.election;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.testkit.ApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** One candidate in a test: its own client, wall clock and metrics, and a record of when it started and stopped leading. */
final class Candidate implements AutoCloseable {
    static final String NAMESPACE = "lbk8s-system";
    static final String LEASE = "lbk8s-controller";
    /** Short settings, so that the tests are quick: lease 1 s, renew deadline 700 ms, retry 100 ms. */
    static final ElectionSettings QUICK =
            new ElectionSettings(Duration.ofMillis(1_000), Duration.ofMillis(700), Duration.ofMillis(100));

    record Change(boolean leading, long atNanos) {}

    final String name;
    final KubernetesClient client;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final List<Change> changes = new CopyOnWriteArrayList<>();
    final LeaderElection election;

    Candidate(KubernetesClient client, String name, Clock wallClock) {
        this.name = name;
        this.client = client;
        this.election = new LeaderElection(
                client,
                NAMESPACE,
                LEASE,
                name,
                QUICK,
                new LeaderElection.Listener() {
                    @Override
                    public void startedLeading() {
                        changes.add(new Change(true, System.nanoTime()));
                    }

                    @Override
                    public void stoppedLeading() {
                        changes.add(new Change(false, System.nanoTime()));
                    }
                },
                registry,
                wallClock);
    }

    static Candidate start(ApiServer server, String name) {
        return start(server, name, Clock.systemUTC());
    }

    static Candidate start(ApiServer server, String name, Clock wallClock) {
        var candidate = new Candidate(server.newClient(), name, wallClock);
        candidate.election.start();
        return candidate;
    }

    boolean leading() {
        return election.leading();
    }

    Optional<Long> lastChange(boolean leading) {
        return changes.reversed().stream()
                .filter(c -> c.leading() == leading)
                .map(Change::atNanos)
                .findFirst();
    }

    long starts() {
        return changes.stream().filter(Change::leading).count();
    }

    /** What a kill -9 leaves: the API unreachable for it, and its Lease as last renewed, not released. */
    void kill() {
        client.close();
        election.close();
    }

    String metrics() {
        return registry.scrape();
    }

    @Override
    public void close() {
        election.close();
        client.close();
    }

    @Override
    public String toString() {
        return name;
    }
}

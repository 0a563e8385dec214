package io.lbk8s.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.election.Candidacy;
import io.lbk8s.election.ElectionMetrics;
import io.lbk8s.election.LeaderElection;
import io.lbk8s.health.HealthServer.Readiness;
import io.lbk8s.kube.ClusterNames;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller replica: its caches always warm, reconciling only while it holds the Lease
 * {@value ClusterNames#CONTROLLER_LEASE} in its namespace, or always when it runs without an election.
 */
public final class ElectedController implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ElectedController.class);

    private final Controller controller;
    private final Optional<LeaderElection> election;
    private final MeterRegistry registry;

    /** Without {@code candidacy}, this replica leads without an election (two such replicas both lead). */
    public ElectedController(
            KubernetesClient client,
            ControllerSettings settings,
            MeterRegistry registry,
            Optional<Candidacy> candidacy) {
        this.controller = new Controller(client, settings, registry);
        this.registry = registry;
        this.election = candidacy.map(c -> new LeaderElection(
                client,
                settings.namespace(),
                ClusterNames.CONTROLLER_LEASE,
                c.identity(),
                c.settings(),
                new LeaderElection.Listener() {
                    @Override
                    public void startedLeading() {
                        controller.lead();
                    }

                    @Override
                    public void stoppedLeading() {
                        controller.standBy();
                    }
                },
                registry,
                Clock.systemUTC()));
    }

    /** Fills the caches (a standby keeps them warm), then runs for leader, or leads at once without an election. */
    public ElectedController start() {
        controller.start();
        if (election.isPresent()) {
            election.get().start();
        } else {
            log.info("leader election is off: this replica leads without one");
            new ElectionMetrics(registry).leading(true);
            controller.lead();
        }
        return this;
    }

    public boolean leading() {
        return controller.leading();
    }

    /** Which replica leads, as this one last read the Lease. */
    public Optional<String> leader() {
        return election.flatMap(LeaderElection::leader);
    }

    /** The controller's readiness, naming the replica that leads: a standby is ready, and says who does the work. */
    public Readiness readiness() {
        Readiness own = controller.readiness();
        if (election.isEmpty() || !own.ready()) {
            return own;
        }
        if (controller.leading()) {
            return new Readiness(true, own.reason() + " (" + election.get().identity() + " leads)");
        }
        return new Readiness(
                true,
                "standby: " + leader().map(l -> l + " leads").orElse("no replica leads yet")
                        + "; caches in sync, ready to lead");
    }

    /** Stops reconciling first, then releases the Lease, so that the standby starts only once this one has stopped. */
    @Override
    public void close() {
        controller.standBy();
        election.ifPresent(LeaderElection::close);
        controller.close();
    }
}

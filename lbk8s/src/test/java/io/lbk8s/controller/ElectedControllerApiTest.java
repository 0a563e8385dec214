package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.election.Candidacy;
import io.lbk8s.election.ElectionSettings;
import io.lbk8s.kube.ClusterNames;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two controller replicas in-process, electing a leader on the Lease: only the leader assigns, and the standby takes over. */
class ElectedControllerApiTest {
    static final ElectionSettings QUICK =
            new ElectionSettings(Duration.ofMillis(1_000), Duration.ofMillis(700), Duration.ofMillis(100));

    ControllerHarness lb;
    final List<AutoCloseable> toClose = new ArrayList<>();

    record Replica(String name, ElectedController controller, KubernetesClient client, PrometheusMeterRegistry registry)
            implements AutoCloseable {
        @Override
        public void close() {
            controller.close();
            client.close();
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.pool("default", "10.5.0.200-10.5.0.220");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        lb.close();
    }

    Replica replica(String name) {
        KubernetesClient client = lb.server.newClient();
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var controller = new ElectedController(
                        client,
                        new ControllerSettings(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty()),
                        registry,
                        Optional.of(new Candidacy(name, QUICK)))
                .start();
        var replica = new Replica(name, controller, client, registry);
        toClose.add(replica);
        return replica;
    }

    @Test
    void onlyTheLeaderAssignsAndAfterItStopsTheStandbyAssignsTheNextService() {
        Replica a = replica("controller-a");
        await().atMost(ControllerHarness.PATIENCE).until(() -> a.controller().leading());
        Replica b = replica("controller-b");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> b.controller().readiness().ready());

        lb.service("first");
        assertThat(lb.awaitIp("first")).isEqualTo("10.5.0.200");
        // b has not reconciled anything: it has counted no assigned Service, and says who leads.
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> a.registry().scrape().contains("lbk8s_services_assigned 1.0"));
        assertThat(b.controller().leading()).isFalse();
        assertThat(b.registry().scrape())
                .contains("lbk8s_services_assigned 0.0")
                .contains("lbk8s_controller_leader 0.0");
        assertThat(a.registry().scrape()).contains("lbk8s_controller_leader 1.0");
        assertThat(b.controller().readiness().reason()).startsWith("standby: controller-a leads");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> a.controller().readiness().ready());
        assertThat(a.controller().readiness().reason()).startsWith("ready: ").endsWith("(controller-a leads)");

        a.close(); // a clean stop: a stops reconciling and releases the Lease
        long stopped = System.nanoTime();
        lb.service("second");
        assertThat(lb.awaitIps("default", "second")).containsExactly("10.5.0.201");
        long assignedAfter = Duration.ofNanos(System.nanoTime() - stopped).toMillis();
        assertThat(assignedAfter)
                .as("the standby assigned %d ms after the leader stopped", assignedAfter)
                .isLessThan(3_000);
        assertThat(b.controller().leading()).isTrue();
        assertThat(lb.ips("default", "first")).containsExactly("10.5.0.200");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> b.controller().readiness().reason().endsWith("(controller-b leads)"));
    }

    @Test
    void withoutAnElectionEveryReplicaLeads() {
        KubernetesClient client = lb.server.newClient();
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var controller = new ElectedController(
                        client,
                        new ControllerSettings(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty()),
                        registry,
                        Optional.empty())
                .start();
        toClose.add(new Replica("forced", controller, client, registry));

        assertThat(controller.leading()).isTrue();
        assertThat(registry.scrape()).contains("lbk8s_controller_leader 1.0");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200");
        assertThat(lb.client
                        .leases()
                        .inNamespace(ControllerHarness.DEFAULT_NAMESPACE)
                        .withName(ClusterNames.CONTROLLER_LEASE)
                        .get())
                .as("no Lease without an election")
                .isNull();
    }
}

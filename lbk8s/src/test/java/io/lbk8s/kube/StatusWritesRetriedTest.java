package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.testkit.TestApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * An API server that refuses a few writes (restarting, overloaded, or this node's link just back) does not leave a
 * node's ServiceL2Statuses wrong until its announcements next change: the write is tried again until it succeeds. On
 * the test API server, which refuses a given number of writes of one resource on demand; the real one cannot.
 */
class StatusWritesRetriedTest {
    static final String NS = "lbk8s-system";

    @Test
    void writesTheApiRefusesAreTriedAgain() throws Exception {
        try (TestApiServer server = TestApiServer.start()) {
            server.createCrds(Path.of("..", "deploy", "crds"));
            server.ensureNamespace(NS);
            KubernetesClient client = server.client();
            try (var statuses = new ServiceL2Statuses(client, NS, "node-1", node -> true)) {
                server.dispatcher().refuseWrites("servicel2statuses", 3);
                statuses.publish(Map.of(new ServiceKey("default", "web"), Set.of("eth0")), Set.of());
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> nodesOf(client).equals(Map.of("node-1", 1)));

                server.dispatcher().refuseWrites("servicel2statuses", 3);
                statuses.publish(Map.of(), Set.of());
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> nodesOf(client).isEmpty());
            }
        }
    }

    /** How many ServiceL2Statuses each node has. */
    private static Map<String, Integer> nodesOf(KubernetesClient client) {
        Map<String, Integer> count = new TreeMap<>();
        for (GenericKubernetesResource r : client.genericKubernetesResources(ServiceL2Statuses.CONTEXT)
                .inNamespace(NS)
                .list()
                .getItems()) {
            count.merge(r.getMetadata().getLabels().get(ServiceStatuses.NODE_LABEL), 1, Integer::sum);
        }
        return count;
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.testkit.ApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * As MetalLB, the speaker announces a Service with {@code externalTrafficPolicy: Cluster} only once one of its
 * endpoints is ready, and says why it does not meanwhile: in a NotAnnounced Warning and in {@code lbk8s status}. Here
 * the pool is TEST-NET-3, on no interface of this host, so a node that may announce says it leads the address instead
 * of answering for it.
 */
class SpeakerEndpointsTest {
    static final Duration SOON = Duration.ofSeconds(15);
    static final String NO_ENDPOINT =
            "the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no node"
                    + " announces 203.0.113.20; it is announced as soon as one is ready";
    static final String LEADS = "node node-1 leads 203.0.113.20";

    @Test
    void aServiceIsAnnouncedOnlyWhileAnEndpointIsReady(@TempDir Path dir) throws Exception {
        try (OneNodeCluster cluster = OneNodeCluster.start()) {
            ApiServer server = cluster.server;
            KubernetesClient client = cluster.client;
            cluster.configure(
                    ConfigResources.IP_ADDRESS_POOLS,
                    "IPAddressPool",
                    "test",
                    Map.of("addresses", List.of("203.0.113.0/24")));
            cluster.configure(ConfigResources.L2_ADVERTISEMENTS, "L2Advertisement", "test", Map.of());
            cluster.speaker(0).start();
            cluster.loadBalancer("web", "203.0.113.20");

            cluster.awaitNotAnnounced("web", NO_ENDPOINT, SOON);
            String status = status(server.writeKubeconfig(dir.resolve("kubeconfig")));
            assertThat(status.lines().filter(l -> l.startsWith("default ") && l.contains(" web ")))
                    .singleElement()
                    .asString()
                    .contains("203.0.113.20")
                    .contains(" Assigned ")
                    .contains(NO_ENDPOINT);

            client.discovery().v1().endpointSlices().resource(slice(false)).create();
            await("a Pod that is not ready announces nothing")
                    .during(Duration.ofSeconds(2))
                    .atMost(SOON)
                    .until(() -> warnings(client, LEADS) == 0);

            client.discovery().v1().endpointSlices().resource(slice(true)).update();
            cluster.awaitNotAnnounced("web", LEADS, SOON);

            client.discovery()
                    .v1()
                    .endpointSlices()
                    .inNamespace("default")
                    .withName("web-x1")
                    .delete();
            await("the last endpoint gone, no node may announce again")
                    .atMost(SOON)
                    .until(() -> warnings(client, NO_ENDPOINT) == 2);
        }
    }

    /** The EndpointSlice the EndpointSlice controller writes for web's one Pod, on node-1. */
    private static EndpointSlice slice(boolean ready) {
        return new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("web-x1")
                .withNamespace("default")
                .withLabels(Map.of(ObjectFacts.SERVICE_NAME_LABEL, "web"))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.0.7")
                .withNodeName("node-1")
                .withNewConditions()
                .withReady(ready)
                .withServing(ready)
                .withTerminating(false)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("http")
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .build();
    }

    private static long warnings(KubernetesClient client, String part) {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "web".equals(e.getInvolvedObject().getName())
                        && "NotAnnounced".equals(e.getReason())
                        && e.getMessage().contains(part))
                .count();
    }

    /** {@code lbk8s status}'s output. */
    private static String status(Path kubeconfig) {
        CliRun status = CliRun.of(kubeconfig, "status");
        assertThat(status.code()).as(status.err()).isZero();
        return status.out();
    }
}

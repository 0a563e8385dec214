package io.lbk8s.speaker;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.testkit.TestApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The speaker judges configuration objects one by one, as the controller does: a refused L2Advertisement does not
 * keep it from using a valid pool. No interface of this host is in TEST-NET-3, so the speaker announces nothing; what
 * it decided shows as its NotAnnounced Warning on the Service.
 */
class SpeakerConfigApiTest {
    static final String NS = "lbk8s-system";

    @Test
    void aRefusedObjectDoesNotHideTheValidOnes() throws Exception {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            server.createCrds(Path.of("..", "deploy", "crds"));
            for (String ns : new String[] {NS, "default"}) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            }
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().withNewStatus()
                    .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
            client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("speaker-1")
                    .withLabels(SpeakerSettings.DEFAULT_SPEAKER_LABELS).endMetadata().withNewSpec().withNodeName("node-1")
                    .addNewContainer().withName("speaker").withImage("x").endContainer().endSpec()
                    .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
            create(client, ConfigResources.L2_ADVERTISEMENTS, "L2Advertisement", "refused",
                    Map.of("serviceSelectors", List.of(Map.of("matchLabels", Map.of("app", "web")))));
            try (KubernetesClient speakerClient = server.newClient();
                 Speaker speaker = new Speaker(speakerClient, new SpeakerSettings("node-1", NS, NS, Optional.of("speaker-1"),
                         SpeakerSettings.DEFAULT_SPEAKER_LABELS, Optional.empty(), false, InterfaceChoice.DEFAULT_EXCLUDED,
                         SpeakerSettings.DEFAULT_BURST, Duration.ofSeconds(30), 1 << 20, true, PeerSettings.defaults(0),
                         SpeakerSettings.DEFAULT_TAKEOVER_PROBE), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
                speaker.start();
                create(client, ConfigResources.IP_ADDRESS_POOLS, "IPAddressPool", "web", Map.of("addresses", List.of("203.0.113.0/28")));
                loadBalancer(client, "web", "203.0.113.10");
                awaitNotAnnounced(client, "web", "no L2Advertisement selects pool \"web\", so no node announces 203.0.113.10");
            }
        }
    }

    private static void create(KubernetesClient client, ResourceDefinitionContext context, String kind, String name, Map<String, Object> spec) {
        client.genericKubernetesResources(context).inNamespace(NS).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("metallb.io/v1beta1").withKind(kind).withNewMetadata().withName(name).withNamespace(NS).endMetadata()
                .addToAdditionalProperties("spec", spec).build()).create();
    }

    /** A LoadBalancer Service whose status shows {@code ip}, as the controller would have written it. */
    private static void loadBalancer(KubernetesClient client, String name, String ip) {
        Service created = client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withType("LoadBalancer").addNewPort().withPort(80).endPort().endSpec().build()).create();
        created.setStatus(new ServiceStatusBuilder().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress().endLoadBalancer().build());
        client.services().inNamespace("default").resource(created).updateStatus();
    }

    private static void awaitNotAnnounced(KubernetesClient client, String service, String message) {
        await().atMost(Duration.ofSeconds(15)).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> service.equals(e.getInvolvedObject().getName()) && "NotAnnounced".equals(e.getReason()))
                .map(Event::getMessage).anyMatch(m -> m.contains(message)));
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.testkit.TestApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The speaker against the test API server when its watch of Services breaks: its /readyz says so meanwhile (it stays
 * ready: the leader choice reads speakers' readiness, and an API server restart breaks every speaker's watches at
 * once), and it handles Services again once watches are served. No interface of this host is in TEST-NET-3, and no pool is
 * configured, so the speaker announces nothing: what it decided shows as its NotAnnounced Warning on each Service.
 */
class SpeakerWatchTest {
    static final String NS = "lbk8s-system";

    @Test
    void aBrokenWatchOfServicesRecoversAndReadyzSaysSoMeanwhile() throws Exception {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            server.createCrds(Path.of("..", "deploy", "crds"));
            for (String ns : new String[] {NS, "default"}) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            }
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().withNewStatus()
                    .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
            // The API server ignores a Pod's status on create (as the real one does); the kubelet reports it after.
            var pod = client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("speaker-1")
                    .withLabels(SpeakerSettings.DEFAULT_SPEAKER_LABELS).endMetadata().withNewSpec().withNodeName("node-1")
                    .addNewContainer().withName("speaker").withImage("x").endContainer().endSpec().build()).create();
            pod.setStatus(new PodStatusBuilder().addNewCondition().withType("Ready").withStatus("True").endCondition().build());
            client.pods().inNamespace(NS).resource(pod).updateStatus();
            try (KubernetesClient speakerClient = server.newClient();
                 Speaker speaker = new Speaker(speakerClient, new SpeakerSettings("node-1", NS, NS, Optional.of("speaker-1"),
                         SpeakerSettings.DEFAULT_SPEAKER_LABELS, Optional.empty(), false, InterfaceChoice.DEFAULT_EXCLUDED,
                         SpeakerSettings.DEFAULT_BURST, Duration.ofSeconds(30), 1 << 20, true, PeerSettings.defaults(0),
                         SpeakerSettings.DEFAULT_TAKEOVER_PROBE), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
                speaker.start();
                loadBalancer(client, "before", "203.0.113.10");
                awaitNotAnnounced(client, "before", "203.0.113.10", Duration.ofSeconds(15));
                await().atMost(Duration.ofSeconds(15)).until(() -> speaker.readiness().ready());

                server.dispatcher().breakWatches("", "services");
                await().atMost(Duration.ofSeconds(15)).until(() -> speaker.readiness().reason().contains("not watching services"));
                assertThat(speaker.readiness().ready()).as("said, but still ready: readiness moves addresses").isTrue();
                loadBalancer(client, "during", "203.0.113.11");

                server.dispatcher().mendWatches("", "services");
                await().atMost(Duration.ofSeconds(40)).until(() -> !speaker.readiness().reason().contains("not watching"));
                awaitNotAnnounced(client, "during", "203.0.113.11", Duration.ofSeconds(15));
            }
        }
    }

    /** A LoadBalancer Service whose status shows {@code ip}, as the controller would have written it. */
    private static void loadBalancer(KubernetesClient client, String name, String ip) {
        Service created = client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withType("LoadBalancer").addNewPort().withPort(80).endPort().endSpec().build()).create();
        created.setStatus(new ServiceStatusBuilder().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress().endLoadBalancer().build());
        client.services().inNamespace("default").resource(created).updateStatus();
    }

    private static void awaitNotAnnounced(KubernetesClient client, String service, String ip, Duration patience) {
        await().atMost(patience).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> service.equals(e.getInvolvedObject().getName()) && "NotAnnounced".equals(e.getReason()))
                .map(Event::getMessage).anyMatch(m -> m.contains(ip)));
    }
}

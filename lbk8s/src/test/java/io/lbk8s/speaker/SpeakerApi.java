package io.lbk8s.speaker;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.peers.PeerSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;

/**
 * A speaker for node-1 against the test API server: the namespaces, node-1 Ready with its speaker Pod Ready, and
 * the Services a controller would have given an address. No interface of this host is in TEST-NET-3, so a speaker
 * that leads such an address says so in a NotAnnounced Warning instead of answering for it.
 */
final class SpeakerApi {
    static final String NS = "lbk8s-system";

    private SpeakerApi() {}

    static void nodeWithSpeakerPod(KubernetesClient client) {
        for (String ns : new String[] {NS, "default"}) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        }
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("speaker-1")
                .withLabels(SpeakerSettings.DEFAULT_SPEAKER_LABELS).endMetadata().withNewSpec().withNodeName("node-1")
                .addNewContainer().withName("speaker").withImage("x").endContainer().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    static Speaker speaker(KubernetesClient client) {
        return new Speaker(client, new SpeakerSettings("node-1", NS, NS, Optional.of("speaker-1"),
                SpeakerSettings.DEFAULT_SPEAKER_LABELS, Optional.empty(), false, InterfaceChoice.DEFAULT_EXCLUDED,
                SpeakerSettings.DEFAULT_BURST, Duration.ofSeconds(30), 1 << 20, true, PeerSettings.defaults(0),
                SpeakerSettings.DEFAULT_TAKEOVER_PROBE), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /** A LoadBalancer Service whose status shows {@code ip}, as the controller would have written it. */
    static void loadBalancer(KubernetesClient client, String name, String ip) {
        Service created = client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withType("LoadBalancer").addNewPort().withPort(80).endPort().endSpec().build()).create();
        created.setStatus(new ServiceStatusBuilder().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress().endLoadBalancer().build());
        client.services().inNamespace("default").resource(created).updateStatus();
    }

    /** Waits for a NotAnnounced Warning on the Service whose message contains {@code part}. */
    static void awaitNotAnnounced(KubernetesClient client, String service, String part, Duration patience) {
        await("NotAnnounced on " + service + " saying: " + part).atMost(patience)
                .until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> service.equals(e.getInvolvedObject().getName()) && "NotAnnounced".equals(e.getReason()))
                        .map(Event::getMessage).anyMatch(m -> m.contains(part)));
    }
}

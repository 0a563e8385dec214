package io.lbk8s.speaker;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.lean.LeanDecoding;
import io.lbk8s.peers.PeerSettings;
import io.lbk8s.testkit.ApiServer;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.cluster.AuditLog;
import io.lbk8s.testkit.cluster.FreshApiServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real kube-apiserver, emptied, holding what a speaker on {@code node-1} expects to find: the lbk8s CRDs, the namespaces
 * {@code lbk8s-system} and {@code default}, a Ready Node and a Ready speaker Pod (its status reported after create, as
 * the kubelet does). No interface of a test host is in TEST-NET-3, so a speaker here announces nothing: what it
 * decided shows as its NotAnnounced Warning on each Service.
 */
public final class OneNodeCluster implements AutoCloseable {
    public static final String NS = "lbk8s-system";
    public static final String NODE = "node-1";
    public static final String SPEAKER_POD = "speaker-1";

    public final ApiServer server;
    public final KubernetesClient client;
    private final List<AutoCloseable> started = new ArrayList<>();

    private OneNodeCluster(ApiServer server) throws IOException {
        this.server = server;
        this.client = server.client();
        server.createCrds(Path.of("..", "deploy", "crds"));
        for (String ns : new String[] {NS, "default"}) {
            server.ensureNamespace(ns);
        }
        client.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(NODE)
                        .endMetadata()
                        .withNewStatus()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build())
                .create();
        Pod pod = client.pods()
                .inNamespace(NS)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(SPEAKER_POD)
                        .withLabels(ClusterNames.SPEAKER_POD_LABELS)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(NODE)
                        .addNewContainer()
                        .withName("speaker")
                        .withImage("x")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        pod.setStatus(new PodStatusBuilder()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .build());
        client.pods().inNamespace(NS).resource(pod).updateStatus();
    }

    public static OneNodeCluster start() throws IOException {
        return new OneNodeCluster(FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds")));
    }

    /**
     * On the test API server, whose {@link #faults()} break one resource's watches on demand, which the real one
     * cannot.
     */
    public static OneNodeCluster startOnTheTestApiServer() throws IOException {
        return new OneNodeCluster(TestApiServer.start());
    }

    /** The requests the real server served this test, from its audit log; only for {@link #start()}. */
    public List<AuditLog.Request> requests() {
        return ((FreshApiServer) server).requests();
    }

    /** The test API server's fault injection; only for {@link #startOnTheTestApiServer()}. */
    public TestApiServer faults() {
        return (TestApiServer) server;
    }

    /** A speaker for {@code node-1} with its own client, not started; closed with the cluster. */
    public Speaker speaker(int peerPort) {
        return speaker(peerPort, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /** A speaker for {@code node-1} with its own client and metrics in {@code registry}, not started. */
    public Speaker speaker(int peerPort, MeterRegistry registry) {
        return speaker(peerPort, registry, BgpSessionsFactory.SESSIONS);
    }

    /** A speaker for {@code node-1} whose BGP sessions {@code bgp} starts, not started. */
    public Speaker speaker(int peerPort, MeterRegistry registry, BgpSessionsFactory bgp) {
        KubernetesClient speakerClient = server.newClient(LeanDecoding.serialization()); // as SpeakerCommand's
        Speaker speaker = new Speaker(speakerClient, settings(peerPort), registry, bgp);
        started.add(speakerClient);
        started.add(speaker);
        return speaker;
    }

    /** Creates a metallb.io configuration object in {@code lbk8s-system}. */
    public void configure(ResourceDefinitionContext context, String kind, String name, Map<String, Object> spec) {
        client.genericKubernetesResources(context)
                .inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion(context.getGroup() + "/" + context.getVersion())
                        .withKind(kind)
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build())
                .create();
    }

    /** The settings of the speaker on {@code node-1}, its failure detector on {@code peerPort} (0: any free port). */
    public static SpeakerSettings settings(int peerPort) {
        return new SpeakerSettings(
                NODE,
                NS,
                NS,
                Optional.of(SPEAKER_POD),
                ClusterNames.SPEAKER_POD_LABELS,
                Optional.empty(),
                false,
                InterfaceChoice.DEFAULT_EXCLUDED,
                SpeakerSettings.DEFAULT_BURST,
                Duration.ofSeconds(30),
                1 << 20,
                true,
                PeerSettings.defaults(peerPort),
                SpeakerSettings.DEFAULT_TAKEOVER_PROBE,
                0);
    }

    /** A LoadBalancer Service in {@code default} whose status shows {@code ip}, as the controller would have written it. */
    public void loadBalancer(String name, String ip) {
        giveAddress(createLoadBalancer(name, Map.of()), ip);
    }

    /** A LoadBalancer Service in {@code default} selecting {@code selector} (none: empty), as yet without an address. */
    public Service createLoadBalancer(String name, Map<String, String> selector) {
        return client.services()
                .inNamespace("default")
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(selector)
                        .addNewPort()
                        .withPort(80)
                        .endPort()
                        .endSpec()
                        .build())
                .create();
    }

    /** The controller's part: {@code ip} in the status of {@code service}, as it was created. */
    public void giveAddress(Service service, String ip) {
        service.setStatus(new ServiceStatusBuilder()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp(ip)
                .endIngress()
                .endLoadBalancer()
                .build());
        client.services().inNamespace("default").resource(service).updateStatus();
    }

    /** Waits for a NotAnnounced Warning on the Service {@code default/service} whose message contains {@code text}. */
    public void awaitNotAnnounced(String service, String text, Duration patience) {
        await().atMost(patience)
                .until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e ->
                                service.equals(e.getInvolvedObject().getName()) && "NotAnnounced".equals(e.getReason()))
                        .map(Event::getMessage)
                        .anyMatch(m -> m.contains(text)));
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable closeable : started.reversed()) {
            closeable.close();
        }
        server.close();
    }
}

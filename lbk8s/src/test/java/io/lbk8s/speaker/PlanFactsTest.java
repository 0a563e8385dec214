package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.PeerViewAnnotation;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which watch events may change the speaker's plan, and which it skips. */
class PlanFactsTest {
    private final PlanFacts facts = new PlanFacts(Optional.empty(), Set.of("default/web")::contains);

    @Test
    void aNodesHeartbeatChangesNothingItsReadinessLabelsAndAddressDo() {
        Node node = node("True", "2026-12-05T00:00:00Z", Map.of(), "10.0.0.1");

        assertThat(facts.changes(node, node("True", "2026-12-05T00:00:10Z", Map.of(), "10.0.0.1")))
                .isFalse();
        assertThat(facts.changes(node, node("False", "2026-12-05T00:00:10Z", Map.of(), "10.0.0.1")))
                .isTrue();
        assertThat(facts.changes(
                        node, node("True", "2026-12-05T00:00:00Z", Map.of(NodeState.EXCLUDE_LABEL, ""), "10.0.0.1")))
                .isTrue();
        assertThat(facts.changes(node, node("True", "2026-12-05T00:00:00Z", Map.of(), "10.0.0.2")))
                .isTrue();
        assertThat(facts.changes(null, node)).isTrue();
        assertThat(facts.changes(node, null)).isTrue();
    }

    @Test
    void aPeersViewOnASpeakerPodChangesNothingItsReadinessAndNetworkDo() {
        Pod pod = speakerPod("True", Map.of(NodeNetwork.ANNOTATION, "a"));

        assertThat(facts.changes(
                        pod, speakerPod("True", Map.of(NodeNetwork.ANNOTATION, "a", PeerViewAnnotation.KEY, "v"))))
                .isFalse();
        assertThat(facts.changes(pod, speakerPod("False", Map.of(NodeNetwork.ANNOTATION, "a"))))
                .isTrue();
        assertThat(facts.changes(pod, speakerPod("True", Map.of(NodeNetwork.ANNOTATION, "b"))))
                .isTrue();
    }

    @Test
    void aServiceMattersOnceItHasAnAddress() {
        Service created = service("web", "LoadBalancer", null, null);
        Service annotated = new ServiceBuilder(created)
                .editMetadata()
                .addToAnnotations("metallb.io/ip-allocated-from-pool", "web")
                .endMetadata()
                .build();
        Service assigned = service("web", "LoadBalancer", null, "203.0.113.10");

        assertThat(facts.changes(null, created)).isFalse();
        assertThat(facts.changes(created, annotated)).isFalse();
        assertThat(facts.changes(annotated, assigned)).isTrue();
        assertThat(facts.changes(assigned, service("web", "LoadBalancer", "Local", "203.0.113.10")))
                .isTrue();
        assertThat(facts.changes(assigned, null)).isTrue();
        assertThat(facts.changes(created, null)).isFalse();
        // another class's address is not announced, but the look-ahead probes leave it alone
        assertThat(facts.changes(null, service("other", "ClusterIP", null, "203.0.113.11")))
                .isTrue();
    }

    @Test
    void anEndpointSliceMattersOnlyForAServiceThePlanAnnounces() {
        assertThat(facts.changes(slice("web", true), slice("web", false))).isTrue();
        assertThat(facts.changes(null, slice("web", true))).isTrue();
        assertThat(facts.changes(slice("web", true), slice("web", true))).isFalse();
        assertThat(facts.changes(null, slice("waiting", true))).isFalse();
        assertThat(facts.changes(slice("waiting", true), slice("waiting", false)))
                .isFalse();
    }

    @Test
    void theConfigurationMattersAtEachNewVersionNotWhenARelistBringsTheSameOne() {
        assertThat(facts.changes(configMap("1"), configMap("1"))).isFalse();
        assertThat(facts.changes(configMap("1"), configMap("2"))).isTrue();
        assertThat(facts.changes(null, configMap("1"))).isTrue();
        assertThat(facts.changes(configMap("1"), null)).isTrue();
        assertThat(facts.changes(configMap(null), configMap(null))).isTrue();
    }

    private static Node node(String ready, String heartbeat, Map<String, String> labels, String internalIp) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .withLabels(labels)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .withLastHeartbeatTime(heartbeat)
                .endCondition()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress(internalIp)
                .endAddress()
                .endStatus()
                .build();
    }

    private static Pod speakerPod(String ready, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("speaker-1")
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .endCondition()
                .endStatus()
                .build();
    }

    static Service service(String name, String type, String trafficPolicy, String ip) {
        ServiceBuilder builder = new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withType(type)
                .withExternalTrafficPolicy(trafficPolicy)
                .endSpec();
        if (ip != null) {
            builder.withNewStatus()
                    .withNewLoadBalancer()
                    .addNewIngress()
                    .withIp(ip)
                    .endIngress()
                    .endLoadBalancer()
                    .endStatus();
        }
        return builder.build();
    }

    /** The EndpointSlice of {@code service}'s one Pod, on node-1. */
    static EndpointSlice slice(String service, boolean ready) {
        return slice(service + "-x1", service, "node-1", ready);
    }

    /** The EndpointSlice {@code name} of {@code service}'s one Pod, on {@code node}. */
    static EndpointSlice slice(String name, String service, String node, boolean ready) {
        return new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withLabels(Map.of(ObjectFacts.SERVICE_NAME_LABEL, service))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.0.5")
                .withNodeName(node)
                .withNewConditions()
                .withReady(ready)
                .endConditions()
                .endEndpoint()
                .build();
    }

    private static ConfigMap configMap(String resourceVersion) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName("config")
                .withNamespace("lbk8s-system")
                .withResourceVersion(resourceVersion)
                .endMetadata()
                .build();
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.ObjectFacts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SpeakerMappingTest {

    static Node node(String name, String ready, String networkUnavailable) {
        var builder = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("zone", "a"))
                .endMetadata()
                .withNewStatus();
        if (ready != null) {
            builder.addNewCondition().withType("Ready").withStatus(ready).endCondition();
        }
        if (networkUnavailable != null) {
            builder.addNewCondition()
                    .withType("NetworkUnavailable")
                    .withStatus(networkUnavailable)
                    .endCondition();
        }
        return builder.endStatus().build();
    }

    static Pod pod(String name, String node, String ready, boolean deleting) {
        var builder = new PodBuilder().withNewMetadata().withName(name).withNamespace("lbk8s-system");
        if (deleting) {
            builder.withDeletionTimestamp("2026-12-02T10:00:00Z");
        }
        var pod =
                builder.endMetadata().withNewSpec().withNodeName(node).endSpec().withNewStatus();
        if (ready != null) {
            pod.addNewCondition().withType("Ready").withStatus(ready).endCondition();
        }
        return pod.endStatus().build();
    }

    @Test
    void nodeConditionsBecomeState() {
        assertThat(SpeakerMapping.nodeState(node("n1", "True", "False"), Set.of("n1")))
                .isEqualTo(new NodeState("n1", Map.of("zone", "a"), true, false, true));
        assertThat(SpeakerMapping.nodeState(node("n1", "Unknown", null), Set.of()))
                .isEqualTo(new NodeState("n1", Map.of("zone", "a"), false, false, false));
        assertThat(SpeakerMapping.nodeState(node("n1", "True", "True"), Set.of("n1"))
                        .networkUnavailable())
                .isTrue();
        assertThat(SpeakerMapping.nodeState(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName("bare")
                                .endMetadata()
                                .build(),
                        Set.of()))
                .isEqualTo(new NodeState("bare", Map.of(), false, false, false));
    }

    @Test
    void onlyReadyUndeletedScheduledSpeakerPodsCount() {
        List<Pod> pods = List.of(
                pod("a", "n1", "True", false),
                pod("b", "n2", "False", false),
                pod("c", "n3", "True", true), // being deleted: hands over at once
                pod("d", null, "True", false), // not scheduled
                pod("e", "n4", null, false)); // no conditions yet
        assertThat(SpeakerMapping.nodesWithReadySpeaker(pods)).containsExactly("n1");
    }

    @Test
    void endpointsByServiceWithTheirNodeAndConditions() {
        EndpointSlice slice = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("web-abc")
                .withNamespace("default")
                .withLabels(Map.of(ObjectFacts.SERVICE_NAME_LABEL, "web"))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.1.0.1")
                .withNodeName("n1")
                .withNewConditions()
                .withReady(true)
                .endConditions()
                .endEndpoint()
                .addNewEndpoint()
                .withAddresses("10.1.0.2")
                .withNodeName("n2")
                .withNewConditions()
                .withReady(false)
                .withServing(true)
                .withTerminating(true)
                .endConditions()
                .endEndpoint()
                .addNewEndpoint()
                .withAddresses("10.1.0.3")
                .withNodeName("n3")
                .endEndpoint() // no conditions: none said
                .addNewEndpoint()
                .withAddresses("10.1.0.4")
                .endEndpoint() // no node
                .build();
        EndpointSlice unlabelled = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("x")
                .withNamespace("default")
                .endMetadata()
                .addNewEndpoint()
                .withAddresses("10.1.0.9")
                .withNodeName("n9")
                .endEndpoint()
                .build();
        Optional<Boolean> unsaid = Optional.empty();
        assertThat(SpeakerMapping.endpointsByService(List.of(slice, unlabelled)))
                .isEqualTo(Map.of(
                        "default/web",
                        List.of(
                                new EndpointState(Optional.of("n1"), Optional.of(true), unsaid, unsaid),
                                new EndpointState(
                                        Optional.of("n2"), Optional.of(false), Optional.of(true), Optional.of(true)),
                                new EndpointState(Optional.of("n3"), unsaid, unsaid, unsaid),
                                new EndpointState(Optional.empty(), unsaid, unsaid, unsaid))));
    }

    @Test
    void serviceStateReadsStatusPolicyAndEndpoints() {
        var service = new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withExternalTrafficPolicy("Local")
                .endSpec()
                .withNewStatus()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp("fd00::5")
                .endIngress()
                .addNewIngress()
                .withIp("10.0.0.5")
                .endIngress()
                .addNewIngress()
                .withHostname("lb.example")
                .endIngress()
                .endLoadBalancer()
                .endStatus()
                .build();
        Optional<Boolean> unsaid = Optional.empty();
        Map<String, List<EndpointState>> endpoints = Map.of(
                "default/web",
                List.of(
                        new EndpointState(Optional.of("n1"), Optional.of(false), unsaid, unsaid),
                        new EndpointState(Optional.of("n2"), Optional.of(true), unsaid, unsaid)));
        ServiceState state = SpeakerMapping.serviceState(service, endpoints);
        assertThat(state.ips())
                .containsExactly(
                        IpAddress.parse("10.0.0.5").orElseThrow(),
                        IpAddress.parse("fd00::5").orElseThrow());
        assertThat(state.localTrafficPolicy()).isTrue();
        assertThat(state.endpoints()).isEqualTo(new ServiceEndpoints(true, Set.of("n2")));

        service.getSpec().setPublishNotReadyAddresses(true);
        assertThat(SpeakerMapping.serviceState(service, Map.of()).endpoints())
                .as("no EndpointSlice")
                .isEqualTo(ServiceEndpoints.NONE);
    }
}

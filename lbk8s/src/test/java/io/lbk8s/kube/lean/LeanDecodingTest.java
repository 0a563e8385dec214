package io.lbk8s.kube.lean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lbk8s.kube.CompactEndpointSliceStore;
import io.lbk8s.kube.CompactServiceStore;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.PeerViewAnnotation;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.speaker.SpeakerMapping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The speaker's lean objects read as fabric8's whole ones do, for everything lbk8s reads of them: a Pod, a Node, a
 * Service and an EndpointSlice as kube-apiserver serves them (managed fields, containers, volumes, images, cluster
 * IPs, addresses, hints), and variations of them.
 */
class LeanDecodingTest {
    private static final KubernetesSerialization LEAN = LeanDecoding.serialization();
    private static final KubernetesSerialization WHOLE = new KubernetesSerialization();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    static Stream<Arguments> pods() throws IOException {
        String served = fixture("pod-as-served.json");
        return Stream.of(
                Arguments.of("as served", served),
                Arguments.of(
                        "being deleted",
                        edit(served, pod -> meta(pod).put("deletionTimestamp", "2026-12-01T11:00:00Z"))),
                Arguments.of(
                        "not ready", edit(served, pod -> condition(pod, "Ready").put("status", "False"))),
                Arguments.of(
                        "with the failure detector's view",
                        edit(
                                served,
                                pod -> ((ObjectNode) meta(pod).get("annotations"))
                                        .put(
                                                PeerViewAnnotation.KEY,
                                                "{\"ready\":true,\"reason\":\"ok\",\"peers\":{\"node-2\":\"alive\"}}"))),
                Arguments.of("no status yet", edit(served, pod -> pod.remove("status"))),
                Arguments.of("not scheduled", edit(served, pod -> ((ObjectNode) pod.get("spec")).remove("nodeName"))),
                Arguments.of(
                        "null labels and annotations",
                        edit(served, pod -> meta(pod).putNull("labels").putNull("annotations"))),
                Arguments.of(
                        "null conditions", edit(served, pod -> ((ObjectNode) pod.get("status")).putNull("conditions"))),
                Arguments.of(
                        "unknown fields, nested",
                        edit(
                                served,
                                pod -> ((ObjectNode) pod.get("spec"))
                                        .set("newField", JSON.readTree("[[{\"a\": [1, {}]}], null, \"x\"]")))),
                Arguments.of(
                        "the fields in another order",
                        "{\"status\": {\"conditions\": [{\"status\": \"True\", \"type\": \"Ready\"}]},"
                                + " \"spec\": {\"nodeName\": \"node-2\"}, \"metadata\": {\"name\": \"s\","
                                + " \"namespace\": \"n\"}, \"kind\": \"Pod\", \"apiVersion\": \"v1\"}"));
    }

    static Stream<Arguments> nodes() throws IOException {
        String served = fixture("node-as-served.json");
        return Stream.of(
                Arguments.of("as served", served),
                Arguments.of(
                        "not ready",
                        edit(served, node -> condition(node, "Ready").put("status", "False"))),
                Arguments.of(
                        "network unavailable",
                        edit(
                                served,
                                node -> ((ArrayNode) node.get("status").get("conditions"))
                                        .addObject()
                                        .put("type", "NetworkUnavailable")
                                        .put("status", "True"))),
                Arguments.of(
                        "no InternalIP",
                        edit(
                                served,
                                node -> ((ObjectNode) node.get("status")
                                                .get("addresses")
                                                .get(0))
                                        .put("type", "ExternalIP"))),
                Arguments.of("no status", edit(served, node -> node.remove("status"))),
                Arguments.of("null labels", edit(served, node -> meta(node).putNull("labels"))));
    }

    static Stream<Arguments> services() throws IOException {
        String served = fixture("service-as-served.json");
        return Stream.of(
                Arguments.of("as served", served),
                Arguments.of("no status yet", edit(served, service -> service.remove("status"))),
                Arguments.of(
                        "two addresses, a hostname",
                        edit(
                                served,
                                service -> ((ArrayNode) service.get("status")
                                                .get("loadBalancer")
                                                .get("ingress"))
                                        .addObject()
                                        .put("hostname", "lb.example"))),
                Arguments.of(
                        "dual stack, a class, local traffic, not-ready addresses published",
                        edit(
                                served,
                                service -> ((ObjectNode) service.get("spec"))
                                        .put("loadBalancerClass", "lbk8s.io/l2")
                                        .put("ipFamilyPolicy", "PreferDualStack")
                                        .put("externalTrafficPolicy", "Local")
                                        .put("publishNotReadyAddresses", true)
                                        .set("ipFamilies", JSON.readTree("[\"IPv6\", \"IPv4\"]")))),
                Arguments.of(
                        "a requested address, no selector",
                        edit(
                                served,
                                service -> ((ObjectNode) service.get("spec"))
                                        .put("loadBalancerIP", "10.5.0.9")
                                        .remove("selector"))),
                Arguments.of(
                        "a ClusterIP Service",
                        edit(served, service -> ((ObjectNode) service.get("spec")).put("type", "ClusterIP"))));
    }

    static Stream<Arguments> endpointSlices() throws IOException {
        String served = fixture("endpointslice-as-served.json");
        return Stream.of(
                Arguments.of("as served: ready, terminating, no conditions", served),
                Arguments.of("no endpoints", edit(served, slice -> slice.putNull("endpoints"))),
                Arguments.of(
                        "no Service label", edit(served, slice -> meta(slice).putNull("labels"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void aLeanServiceReadsAndIsCachedAsAWholeOne(String name, String json) {
        Service lean = LEAN.unmarshal(json, Service.class);
        Service whole = WHOLE.unmarshal(json, Service.class);

        assertThat(lean.getSpec().getClusterIP()).as("what is skipped").isNull();
        assertThat(read(lean)).isEqualTo(read(whole));
        assertThat(ServiceMapping.view(lean)).isEqualTo(ServiceMapping.view(whole));
        assertThat(ServiceMapping.statusIps(lean)).isEqualTo(ServiceMapping.statusIps(whole));
        assertThat(cached(new CompactServiceStore(), lean)).isEqualTo(cached(new CompactServiceStore(), whole));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("endpointSlices")
    void aLeanEndpointSliceReadsAndIsCachedAsAWholeOne(String name, String json) {
        EndpointSlice lean = LEAN.unmarshal(json, EndpointSlice.class);
        EndpointSlice whole = WHOLE.unmarshal(json, EndpointSlice.class);

        assertThat(lean.getPorts()).as("what is skipped").isEmpty();
        assertThat(read(lean)).isEqualTo(read(whole));
        assertThat(SpeakerMapping.sliceEndpoints(lean)).isEqualTo(SpeakerMapping.sliceEndpoints(whole));
        assertThat(cached(new CompactEndpointSliceStore(), lean))
                .isEqualTo(cached(new CompactEndpointSliceStore(), whole));
    }

    /** The object as an informer's compact cache gives it back. */
    private static <T extends HasMetadata> T cached(ItemStore<T> store, T object) {
        String key = store.getKey(object);
        store.put(key, object);
        return store.get(key);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void aLeanPodReadsAsAWholeOne(String name, String json) {
        Pod lean = LEAN.unmarshal(json, Pod.class);
        Pod whole = WHOLE.unmarshal(json, Pod.class);

        assertThat(lean.getSpec().getContainers()).as("what is skipped").isEmpty();
        assertThat(read(lean)).isEqualTo(read(whole));
        assertThat(SpeakerMapping.nodesWithSpeaker(List.of(lean)))
                .isEqualTo(SpeakerMapping.nodesWithSpeaker(List.of(whole)));
        assertThat(SpeakerMapping.nodesWithReadySpeaker(List.of(lean)))
                .isEqualTo(SpeakerMapping.nodesWithReadySpeaker(List.of(whole)));
        assertThat(PeerViewAnnotation.View.of(lean)).isEqualTo(PeerViewAnnotation.View.of(whole));
        if (whole.getStatus() != null) {
            assertThat(lean.getStatus().getConditions())
                    .isEqualTo(whole.getStatus().getConditions());
            assertThat(lean.getStatus().getPodIP()).isEqualTo(whole.getStatus().getPodIP());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodes")
    void aLeanNodeReadsAsAWholeOne(String name, String json) {
        Node lean = LEAN.unmarshal(json, Node.class);
        Node whole = WHOLE.unmarshal(json, Node.class);

        assertThat(lean.getStatus() == null || lean.getStatus().getImages().isEmpty())
                .as("what is skipped")
                .isTrue();
        assertThat(read(lean)).isEqualTo(read(whole));
        assertThat(SpeakerMapping.nodeState(lean, Set.of("node-1")))
                .isEqualTo(SpeakerMapping.nodeState(whole, Set.of("node-1")));
        assertThat(ObjectFacts.internalIp(lean)).isEqualTo(ObjectFacts.internalIp(whole));
        if (whole.getStatus() != null) {
            assertThat(lean.getStatus().getAddresses())
                    .isEqualTo(whole.getStatus().getAddresses());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void informersGetLeanPodsFromListsAndWatchEvents(String name, String json) {
        PodList list = LEAN.unmarshal(
                "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {\"resourceVersion\": \"7\"},"
                        + " \"items\": [" + json + "]}",
                PodList.class);
        WatchEvent event = LEAN.unmarshal("{\"type\": \"MODIFIED\", \"object\": " + json + "}", WatchEvent.class);

        assertThat(list.getItems())
                .singleElement()
                .satisfies(p -> assertThat(p.getSpec().getContainers()).isEmpty());
        assertThat(read(list.getItems().getFirst())).isEqualTo(read(WHOLE.unmarshal(json, Pod.class)));
        assertThat(event.getObject())
                .isInstanceOfSatisfying(
                        Pod.class,
                        p -> assertThat(read(p)).isEqualTo(read(list.getItems().getFirst())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodes")
    void informersGetLeanNodesFromLists(String name, String json) {
        NodeList list = LEAN.unmarshal(
                "{\"kind\": \"NodeList\", \"apiVersion\": \"v1\", \"items\": [" + json + "]}", NodeList.class);

        assertThat(read(list.getItems().getFirst())).isEqualTo(read(WHOLE.unmarshal(json, Node.class)));
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("labels a list", "{\"kind\": \"Pod\", \"metadata\": {\"labels\": [\"a\"]}}"),
                Arguments.of("a label an object", "{\"kind\": \"Pod\", \"metadata\": {\"labels\": {\"a\": {}}}}"),
                Arguments.of("conditions an object", "{\"kind\": \"Pod\", \"status\": {\"conditions\": {}}}"),
                Arguments.of("metadata a string", "{\"kind\": \"Pod\", \"metadata\": \"x\"}"),
                Arguments.of("cut short", "{\"kind\": \"Pod\", \"spec\": {\"nodeName\": "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedPodIsRefusedAsAWholeOneIs(String name, String json) {
        assertThatThrownBy(() -> WHOLE.unmarshal(json, Pod.class))
                .isInstanceOf(KubernetesClientException.class)
                .hasRootCauseInstanceOf(JacksonException.class);
        assertThatThrownBy(() -> LEAN.unmarshal(json, Pod.class))
                .isInstanceOf(KubernetesClientException.class)
                .hasRootCauseInstanceOf(JacksonException.class);
    }

    /** What lbk8s reads of any object: identity, version, labels, annotations, deletion. */
    private record Read(
            String kind,
            String apiVersion,
            String name,
            String namespace,
            String uid,
            String resourceVersion,
            Object labels,
            Object annotations,
            String deletionTimestamp) {}

    private static Read read(HasMetadata object) {
        var m = object.getMetadata();
        return new Read(
                object.getKind(),
                object.getApiVersion(),
                m.getName(),
                m.getNamespace(),
                m.getUid(),
                m.getResourceVersion(),
                m.getLabels(),
                m.getAnnotations(),
                m.getDeletionTimestamp());
    }

    private static String fixture(String name) throws IOException {
        return Files.readString(Path.of("src/test/resources/fixtures/objects", name));
    }

    private static String edit(String json, Consumer<ObjectNode> change) {
        ObjectNode tree = (ObjectNode) JSON.readTree(json);
        change.accept(tree);
        return tree.toString();
    }

    private static ObjectNode meta(ObjectNode object) {
        return (ObjectNode) object.get("metadata");
    }

    private static ObjectNode condition(ObjectNode object, String type) {
        for (var condition : object.get("status").get("conditions")) {
            if (condition.get("type").asString().equals(type)) {
                return (ObjectNode) condition;
            }
        }
        throw new IllegalArgumentException("no condition " + type);
    }
}

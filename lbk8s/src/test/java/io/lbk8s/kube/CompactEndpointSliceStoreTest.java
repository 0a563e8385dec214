package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.lbk8s.speaker.SpeakerMapping;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactEndpointSliceStoreTest {
    /** A slice as the EndpointSlice controller writes it: more than the speaker reads. */
    private static EndpointSlice slice() {
        return new EndpointSliceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web-x7k2p")
                .withUid("slice-uid")
                .withResourceVersion("7")
                .withLabels(Map.of(
                        ObjectFacts.SERVICE_NAME_LABEL,
                        "web",
                        "endpointslice.kubernetes.io/managed-by",
                        "endpointslice-controller.k8s.io"))
                .addNewManagedField()
                .withManager("kube-controller-manager")
                .endManagedField()
                .addNewOwnerReference()
                .withKind("Service")
                .withName("web")
                .endOwnerReference()
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.1.5")
                .withNodeName("node-1")
                .withNewConditions(true, true, false)
                .withNewTargetRef()
                .withKind("Pod")
                .withName("web-1")
                .endTargetRef()
                .withZone("a")
                .endEndpoint()
                .addNewEndpoint()
                .withAddresses("10.244.2.9")
                .withNodeName("node-2")
                .withNewConditions(false, true, true)
                .endEndpoint()
                .addNewEndpoint()
                .withAddresses("10.244.3.1")
                .endEndpoint()
                .addNewPort()
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .build();
    }

    @Test
    void itGivesBackWhatTheSpeakerReads() {
        ItemStore<EndpointSlice> store = new CompactEndpointSliceStore();
        EndpointSlice full = slice();
        store.put(store.getKey(full), full);

        EndpointSlice kept = store.get("shop/web-x7k2p");

        assertThat(SpeakerMapping.endpointsByService(List.of(kept)))
                .isEqualTo(SpeakerMapping.endpointsByService(List.of(full)))
                .containsOnlyKeys("shop/web");
        assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
        // and not what it does not read
        assertThat(kept.getMetadata().getManagedFields()).isEmpty();
        assertThat(kept.getMetadata().getOwnerReferences()).isEmpty();
        assertThat(kept.getEndpoints().getFirst().getAddresses()).isEmpty();
        assertThat(kept.getPorts()).isEmpty();
    }

    @Test
    void aSliceOfNoServiceStaysOneOfNoService() {
        ItemStore<EndpointSlice> store = new CompactEndpointSliceStore();
        EndpointSlice orphan = new EndpointSliceBuilder(slice())
                .editMetadata()
                .withLabels(Map.of())
                .endMetadata()
                .build();
        store.put("shop/web-x7k2p", orphan);

        assertThat(SpeakerMapping.endpointsByService(store.values().toList())).isEmpty();
        assertThat(store.remove("shop/web-x7k2p").getMetadata().getName()).isEqualTo("web-x7k2p");
        assertThat(store.size()).isZero();
    }
}

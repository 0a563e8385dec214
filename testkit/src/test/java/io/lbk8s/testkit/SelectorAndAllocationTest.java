package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

class SelectorAndAllocationTest extends WithServer {

    private void svc(String name, String tier) {
        var b = new ServiceBuilder(TestSupport.loadBalancer(name));
        if (tier != null) {
            b.editMetadata().addToLabels("tier", tier).endMetadata();
        }
        client.services().resource(b.build()).create();
    }

    private java.util.List<String> names(String labelSelector) {
        return client.services().withLabelSelector(labelSelector).list().getItems().stream()
                .map(HasMetadata::getMetadata)
                .map(m -> m.getName())
                .sorted()
                .toList();
    }

    @Test
    void setBasedLabelSelectors() {
        svc("a", "web");
        svc("b", "db");
        svc("c", null);

        assertThat(client.services().withLabelIn("tier", "web", "cache").list().getItems())
                .extracting(s -> s.getMetadata().getName())
                .containsExactly("a");
        assertThat(client.services().withLabelNotIn("tier", "web").list().getItems())
                .extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder("b", "c");
        assertThat(client.services().withoutLabel("tier").list().getItems())
                .extracting(s -> s.getMetadata().getName())
                .containsExactly("c");
        assertThat(client.services().withLabel("tier").list().getItems())
                .extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void deleteCollectionHonoursSetBasedSelectors() {
        svc("a", "web");
        svc("b", "db");
        svc("c", null);

        client.services().withLabelIn("tier", "db").delete();

        assertThat(client.services().list().getItems())
                .extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder("a", "c");
    }

    @Test
    void fieldSelectorsOnArbitraryFields() {
        client.v1()
                .events()
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName("e1")
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withKind("Service")
                        .withName("web")
                        .withNamespace("default")
                        .endInvolvedObject()
                        .withReason("IPAllocated")
                        .withType("Normal")
                        .build())
                .create();
        client.v1()
                .events()
                .resource(new EventBuilder()
                        .withNewMetadata()
                        .withName("e2")
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withKind("Service")
                        .withName("other")
                        .withNamespace("default")
                        .endInvolvedObject()
                        .withReason("IPAllocated")
                        .withType("Warning")
                        .build())
                .create();

        assertThat(client.v1()
                        .events()
                        .withField("involvedObject.name", "web")
                        .list()
                        .getItems())
                .extracting(e -> e.getMetadata().getName())
                .containsExactly("e1");
        assertThat(client.v1().events().withoutField("type", "Normal").list().getItems())
                .extracting(e -> e.getMetadata().getName())
                .containsExactly("e2");
    }

    @Test
    void servicesGetAClusterIpAndIpFamilyDefaults() {
        Service a = client.services().resource(TestSupport.loadBalancer("a")).create();
        Service b = client.services().resource(TestSupport.loadBalancer("b")).create();

        assertThat(a.getSpec().getClusterIP()).startsWith("10.96.");
        assertThat(b.getSpec().getClusterIP())
                .startsWith("10.96.")
                .isNotEqualTo(a.getSpec().getClusterIP());
        assertThat(a.getSpec().getClusterIPs()).containsExactly(a.getSpec().getClusterIP());
        assertThat(a.getSpec().getIpFamilies()).containsExactly("IPv4");
        assertThat(a.getSpec().getIpFamilyPolicy()).isEqualTo("SingleStack");
        assertThat(a.getSpec().getPorts().getFirst().getNodePort()).isBetween(30000, 32767);
        assertThat(a.getStatus().getLoadBalancer()).isNotNull();

        // an update without clusterIP keeps the allocated one
        Service edited = new ServiceBuilder(a)
                .editSpec()
                .withClusterIP(null)
                .withClusterIPs()
                .endSpec()
                .build();
        assertThat(client.services().resource(edited).update().getSpec().getClusterIP())
                .isEqualTo(a.getSpec().getClusterIP());
    }

    @Test
    void changingTypeAwayFromLoadBalancerClearsLoadBalancerStatusAndNodePorts() {
        Service lb = client.services().resource(TestSupport.loadBalancer("web")).create();
        client.services()
                .resource(new ServiceBuilder(lb)
                        .withNewStatus()
                        .withNewLoadBalancer()
                        .addNewIngress()
                        .withIp("192.0.2.20")
                        .endIngress()
                        .endLoadBalancer()
                        .endStatus()
                        .build())
                .updateStatus();

        Service clusterIp = client.services()
                .withName("web")
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"spec\":{\"type\":\"ClusterIP\"}}");

        assertThat(clusterIp.getStatus().getLoadBalancer().getIngress()).isEmpty();
        assertThat(clusterIp.getSpec().getPorts().getFirst().getNodePort()).isNull();
        assertThat(clusterIp.getSpec().getExternalTrafficPolicy()).isNull();
        assertThat(clusterIp.getSpec().getClusterIP()).isEqualTo(lb.getSpec().getClusterIP());

        Service back = client.services()
                .withName("web")
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"spec\":{\"type\":\"LoadBalancer\"}}");
        assertThat(back.getSpec().getPorts().getFirst().getNodePort()).isBetween(30000, 32767);
        assertThat(back.getSpec().getAllocateLoadBalancerNodePorts()).isTrue();
    }

    @Test
    void listsCarryTheirKind() {
        svc("a", null);
        TestSupport.Raw r = TestSupport.get(server, "/api/v1/namespaces/default/services");
        assertThat(r.json().path("kind").asString()).isEqualTo("ServiceList");
        assertThat(r.json().path("apiVersion").asString()).isEqualTo("v1");
    }
}

package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusSubresourceTest extends WithServer {

    private Service withIngress(Service s, String ip) {
        return new ServiceBuilder(s)
                .withStatus(new ServiceStatusBuilder()
                        .withNewLoadBalancer()
                        .addNewIngress()
                        .withIp(ip)
                        .endIngress()
                        .endLoadBalancer()
                        .build())
                .build();
    }

    @Test
    void statusSurvivesAPutOfTheMainResource() {
        Service created =
                client.services().resource(TestSupport.loadBalancer("web")).create();
        client.services().resource(withIngress(created, "192.0.2.10")).updateStatus();

        Service latest = client.services().withName("web").get();
        Service edited = new ServiceBuilder(latest)
                .editMetadata()
                .addToAnnotations("edited", "yes")
                .endMetadata()
                .withStatus(null)
                .build();
        Service afterPut = client.services().resource(edited).update();

        assertThat(afterPut.getMetadata().getAnnotations()).containsEntry("edited", "yes");
        assertThat(afterPut.getStatus().getLoadBalancer().getIngress())
                .extracting("ip")
                .containsExactly("192.0.2.10");
        assertThat(client.services()
                        .withName("web")
                        .get()
                        .getStatus()
                        .getLoadBalancer()
                        .getIngress())
                .extracting("ip")
                .containsExactly("192.0.2.10");
    }

    @Test
    void aPutOfTheMainResourceCannotChangeStatus() {
        Service created =
                client.services().resource(TestSupport.loadBalancer("web")).create();
        Service afterPut =
                client.services().resource(withIngress(created, "192.0.2.66")).update();

        assertThat(afterPut.getStatus().getLoadBalancer().getIngress()).isEmpty();
    }

    @Test
    void aStatusPutLeavesSpecAndMetadataUnchanged() {
        Service created =
                client.services().resource(TestSupport.loadBalancer("web")).create();
        Service tampered = new ServiceBuilder(withIngress(created, "192.0.2.11"))
                .editMetadata()
                .addToLabels("tampered", "true")
                .endMetadata()
                .editSpec()
                .withLoadBalancerClass("other")
                .endSpec()
                .build();

        Service afterStatusPut = client.services().resource(tampered).updateStatus();

        assertThat(afterStatusPut.getStatus().getLoadBalancer().getIngress())
                .extracting("ip")
                .containsExactly("192.0.2.11");
        Service stored = client.services().withName("web").get();
        assertThat(stored.getSpec().getLoadBalancerClass()).isNull();
        assertThat(stored.getMetadata().getLabels()).doesNotContainKey("tampered");
        assertThat(Long.parseLong(stored.getMetadata().getResourceVersion()))
                .isGreaterThan(Long.parseLong(created.getMetadata().getResourceVersion()));
    }

    @Test
    void aStaleStatusPutGetsConflict() {
        Service created =
                client.services().resource(TestSupport.loadBalancer("web")).create();
        client.services().resource(withIngress(created, "192.0.2.12")).updateStatus();

        // created still carries the old resourceVersion
        KubernetesClientException e = catchThrowableOfType(
                KubernetesClientException.class,
                () -> client.services()
                        .resource(withIngress(created, "192.0.2.13"))
                        .updateStatus());

        assertThat(e).isNotNull();
        assertThat(e.getCode()).isEqualTo(409);
        assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
        assertThat(client.services()
                        .withName("web")
                        .get()
                        .getStatus()
                        .getLoadBalancer()
                        .getIngress())
                .extracting("ip")
                .containsExactly("192.0.2.12");
    }

    @Test
    void aStaleMainPutGetsConflict() {
        Service created =
                client.services().resource(TestSupport.loadBalancer("web")).create();
        client.services()
                .resource(new ServiceBuilder(created)
                        .editMetadata()
                        .addToLabels("a", "1")
                        .endMetadata()
                        .build())
                .update();

        KubernetesClientException e = catchThrowableOfType(
                KubernetesClientException.class,
                () -> client.services()
                        .resource(new ServiceBuilder(created)
                                .editMetadata()
                                .addToLabels("b", "2")
                                .endMetadata()
                                .build())
                        .update());

        assertThat(e).isNotNull();
        assertThat(e.getCode()).isEqualTo(409);
        assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
    }

    @Test
    void nodeStatusSurvivesAPutOfTheMainResource() {
        Node node = client.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName("n1")
                        .endMetadata()
                        .withNewStatus()
                        .addNewAddress()
                        .withType("InternalIP")
                        .withAddress("192.0.2.1")
                        .endAddress()
                        .endStatus()
                        .build())
                .create();

        Node relabelled = new NodeBuilder(node)
                .editMetadata()
                .addToLabels("zone", "a")
                .endMetadata()
                .withStatus(null)
                .build();
        client.nodes().resource(relabelled).update();

        Node stored = client.nodes().withName("n1").get();
        assertThat(stored.getMetadata().getLabels()).containsEntry("zone", "a");
        assertThat(stored.getStatus().getAddresses()).extracting("address").containsExactly("192.0.2.1");
    }

    @Test
    void customResourceWithStatusSubresourceBehavesTheSame() {
        TestSupport.createIpAddressPoolCrd(client);
        var pools = client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup("metallb.io")
                        .withVersion("v1beta1")
                        .withKind("IPAddressPool")
                        .withPlural("ipaddresspools")
                        .withNamespaced(true)
                        .build())
                .inNamespace("default");
        GenericKubernetesResource pool = pools.resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("IPAddressPool")
                        .withNewMetadata()
                        .withName("pool")
                        .endMetadata()
                        .addToAdditionalProperties("spec", Map.of("addresses", java.util.List.of("192.0.2.0/28")))
                        .build())
                .create();
        pool.getAdditionalProperties().put("status", Map.of("assignedIPv4", 1));
        pools.resource(pool).updateStatus();

        GenericKubernetesResource latest = pools.withName("pool").get();
        latest.getAdditionalProperties().remove("status");
        latest.getAdditionalProperties().put("spec", Map.of("addresses", java.util.List.of("192.0.2.0/27")));
        pools.resource(latest).update();

        GenericKubernetesResource stored = pools.withName("pool").get();
        assertThat(stored.getAdditionalProperties().get("status")).isEqualTo(Map.of("assignedIPv4", 1));
        assertThat(stored.getMetadata().getGeneration()).isEqualTo(2L);
    }
}

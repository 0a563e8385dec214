package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactServiceStoreTest {
    /** A Service with every field lbk8s decides on set, and some it does not read. */
    private static Service everything() {
        return new ServiceBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .withUid("4f1c-uid")
                .withResourceVersion("42")
                .withAnnotations(Map.of(
                        "metallb.io/loadBalancerIPs", "192.0.2.7",
                        "metallb.io/allow-shared-ip", "web"))
                .withLabels(Map.of("team", "a"))
                .addNewManagedField()
                .withManager("kubectl")
                .withOperation("Apply")
                .endManagedField()
                .addToFinalizers("example.com/keep")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withLoadBalancerClass("lbk8s.io/l2")
                .withLoadBalancerIP("192.0.2.7")
                .withIpFamilies("IPv4", "IPv6")
                .withIpFamilyPolicy("PreferDualStack")
                .addNewPort()
                .withName("http")
                .withProtocol("TCP")
                .withPort(80)
                .withNodePort(30080)
                .endPort()
                .addNewPort()
                .withName("dns")
                .withProtocol("UDP")
                .withPort(53)
                .endPort()
                .withExternalTrafficPolicy("Local")
                .withPublishNotReadyAddresses(true)
                .withSelector(Map.of("app", "web"))
                .withClusterIP("10.96.0.10")
                .withSessionAffinity("ClientIP")
                .endSpec()
                .withNewStatus()
                .withNewLoadBalancer()
                .addNewIngress()
                .withIp("192.0.2.7")
                .withIpMode("VIP")
                .endIngress()
                .addNewIngress()
                .withHostname("lb.example.com")
                .endIngress()
                .endLoadBalancer()
                .addNewCondition()
                .withType("example.com/Checked")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
    }

    @Test
    void itGivesBackWhatLbk8sReads() {
        ItemStore<Service> store = new CompactServiceStore();
        Service full = everything();
        store.put(store.getKey(full), full);

        Service kept = store.get("shop/web");

        assertThat(ServiceMapping.view(kept)).isEqualTo(ServiceMapping.view(full));
        assertThat(kept.getStatus().getLoadBalancer())
                .isEqualTo(full.getStatus().getLoadBalancer());
        // what claims and Events name
        // what the speaker reads besides: whether not-ready endpoints count
        assertThat(kept.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(kept.getMetadata().getUid()).isEqualTo("4f1c-uid");
        assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(kept.getKind()).isEqualTo("Service");
        assertThat(kept.getApiVersion()).isEqualTo("v1");
        // and not what it does not read
        assertThat(kept.getMetadata().getManagedFields()).isEmpty();
        assertThat(kept.getSpec().getClusterIP()).isNull();
        assertThat(kept.getStatus().getConditions()).isEmpty();
    }

    @Test
    void itListsReplacesAndRemovesByNamespaceAndName() {
        ItemStore<Service> store = new CompactServiceStore();
        Service full = everything();
        store.put("shop/web", full);
        Service newer = new ServiceBuilder(full)
                .editMetadata()
                .withResourceVersion("43")
                .endMetadata()
                .editStatus()
                .withNewLoadBalancer()
                .endLoadBalancer()
                .endStatus()
                .build();

        Service replaced = store.put("shop/web", newer);

        assertThat(replaced.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(store.values().map(ServiceMapping::keyOf).map(Object::toString))
                .containsExactly("shop/web");
        assertThat(ServiceMapping.statusIps(store.get("shop/web"))).isEmpty();
        assertThat(store.remove("shop/web").getMetadata().getResourceVersion()).isEqualTo("43");
        assertThat(store.size()).isZero();
        assertThat(store.get("shop/web")).isNull();
    }
}

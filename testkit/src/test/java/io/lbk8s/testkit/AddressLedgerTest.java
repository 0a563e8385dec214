package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.testkit.sandbox.AddressLedger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chaos tests' invariant checker catches what it is for, from Services' status as another controller writes it. */
class AddressLedgerTest {

    @Test
    void twoServicesShowingOneAddressAtOnceIsADuplicateUnlessBothDeclareTheSameSharingKey() throws Exception {
        try (TestApiServer server = TestApiServer.start();
                AddressLedger ledger = AddressLedger.watch(server.client())) {
            KubernetesClient client = server.client();
            create(client, "a", null);
            create(client, "b", null);
            create(client, "shared-1", "key");
            create(client, "shared-2", "key");
            show(client, "a", "192.0.2.1");
            show(client, "b", "192.0.2.1");
            show(client, "shared-1", "192.0.2.2");
            show(client, "shared-2", "192.0.2.2");
            assertThat(ledger.awaitAllAssigned(4, Duration.ofSeconds(5))).isTrue();
            assertThat(ledger.duplicates()).containsExactly("192.0.2.1 shown by default/a and default/b at once");

            // one after the other is no duplicate: the address was released first
            client.services().withName("a").delete();
            create(client, "c", null);
            show(client, "c", "192.0.2.3");
            client.services().withName("b").delete();
            create(client, "d", null);
            show(client, "d", "192.0.2.1");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> ledger.addresses().containsKey("default/d")
                            && !ledger.addresses().get("default/d").isEmpty());
            assertThat(ledger.duplicates()).hasSize(1);
        }
    }

    @Test
    void anAddressChangedOrDroppedOnceShownIsReportedUnlessTheRequestChanged() throws Exception {
        try (TestApiServer server = TestApiServer.start();
                AddressLedger ledger = AddressLedger.watch(server.client())) {
            KubernetesClient client = server.client();
            create(client, "moved", null);
            create(client, "dropped", null);
            create(client, "asked", null);
            show(client, "moved", "192.0.2.1");
            show(client, "dropped", "192.0.2.2");
            show(client, "asked", "192.0.2.3");
            assertThat(ledger.awaitAllAssigned(3, Duration.ofSeconds(5))).isTrue();
            ledger.requestChanged("default", "asked");
            show(client, "moved", "192.0.2.4");
            show(client, "dropped", null);
            show(client, "asked", "192.0.2.5");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> ledger.addresses().get("default/asked").equals(List.of("192.0.2.5")));
            assertThat(ledger.changes())
                    .containsExactlyInAnyOrder(
                            "default/moved: [192.0.2.1] -> [192.0.2.4]", "default/dropped: [192.0.2.2] -> none");
            assertThat(ledger.unassigned()).containsExactly("default/dropped");
            assertThat(ledger.awaitAllAssigned(3, Duration.ofMillis(200))).isFalse();
        }
    }

    private static void create(KubernetesClient client, String name, String sharingKey) {
        ServiceBuilder service = new ServiceBuilder(TestSupport.loadBalancer(name));
        if (sharingKey != null) {
            service.editMetadata()
                    .withAnnotations(Map.of(AddressLedger.SHARING_KEY, sharingKey))
                    .endMetadata();
        }
        client.services().resource(service.build()).create();
    }

    /** What a controller writes: the Service's status shows {@code ip}, or nothing. */
    private static void show(KubernetesClient client, String name, String ip) {
        Service service = client.services().withName(name).get();
        var status = new ServiceStatusBuilder().withNewLoadBalancer();
        if (ip != null) {
            status.addNewIngress().withIp(ip).endIngress();
        }
        service.setStatus(status.endLoadBalancer().build());
        client.services().resource(service).updateStatus();
    }
}

package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class InformerTest {

    @Test
    void serviceInformerSeesAddUpdateStatusAndDelete() {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            client.services().resource(TestSupport.loadBalancer("before")).create();
            List<String> events = new CopyOnWriteArrayList<>();
            SharedIndexInformer<Service> informer = client.services()
                    .inAnyNamespace()
                    .inform(
                            new ResourceEventHandler<>() {
                                @Override
                                public void onAdd(Service s) {
                                    events.add("ADD " + s.getMetadata().getName());
                                }

                                @Override
                                public void onUpdate(Service oldS, Service newS) {
                                    var ingress = newS.getStatus() == null
                                            ? List.of()
                                            : newS.getStatus().getLoadBalancer().getIngress();
                                    events.add("UPDATE " + newS.getMetadata().getName() + " ingress=" + ingress.size());
                                }

                                @Override
                                public void onDelete(Service s, boolean unknownFinalState) {
                                    events.add("DELETE " + s.getMetadata().getName());
                                }
                            },
                            0);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADD before"));

                Service web = client.services()
                        .resource(TestSupport.loadBalancer("web"))
                        .create();
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADD web"));

                client.services()
                        .resource(new ServiceBuilder(web)
                                .withStatus(new ServiceStatusBuilder()
                                        .withNewLoadBalancer()
                                        .addNewIngress()
                                        .withIp("192.0.2.7")
                                        .endIngress()
                                        .endLoadBalancer()
                                        .build())
                                .build())
                        .updateStatus();
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("UPDATE web ingress=1"));
                assertThat(informer.getStore()
                                .getByKey("default/web")
                                .getStatus()
                                .getLoadBalancer()
                                .getIngress())
                        .extracting("ip")
                        .containsExactly("192.0.2.7");

                client.services().withName("web").delete();
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("DELETE web"));
                assertThat(informer.getStore().getByKey("default/web")).isNull();
            } finally {
                informer.close();
            }
        }
    }

    @Test
    void informerWithSetBasedLabelSelectorAndFieldSelectorSeesOnlyMatchingObjects() {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            client.services()
                    .resource(new ServiceBuilder(TestSupport.loadBalancer("early"))
                            .editMetadata()
                            .addToLabels("tier", "web")
                            .endMetadata()
                            .build())
                    .create();
            client.services()
                    .resource(new ServiceBuilder(TestSupport.loadBalancer("db"))
                            .editMetadata()
                            .addToLabels("tier", "db")
                            .endMetadata()
                            .build())
                    .create();
            List<String> events = new CopyOnWriteArrayList<>();
            ResourceEventHandler<Service> handler = new ResourceEventHandler<>() {
                @Override
                public void onAdd(Service s) {
                    events.add("ADD " + s.getMetadata().getName());
                }

                @Override
                public void onUpdate(Service oldS, Service newS) {
                    events.add("UPDATE " + newS.getMetadata().getName());
                }

                @Override
                public void onDelete(Service s, boolean unknownFinalState) {
                    events.add("DELETE " + s.getMetadata().getName());
                }
            };
            SharedIndexInformer<Service> informer = client.services()
                    .withLabelIn("tier", "web", "cache")
                    .withField("spec.type", "LoadBalancer")
                    .inform(handler, 0);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADD early"));
                client.services()
                        .resource(new ServiceBuilder(TestSupport.loadBalancer("late"))
                                .editMetadata()
                                .addToLabels("tier", "cache")
                                .endMetadata()
                                .build())
                        .create();
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ADD late"));

                // leaves the selector: the informer sees a delete
                client.services()
                        .withName("late")
                        .edit(s -> new ServiceBuilder(s)
                                .editMetadata()
                                .addToLabels("tier", "db")
                                .endMetadata()
                                .build());
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("DELETE late"));
                assertThat(informer.getStore().list())
                        .extracting(s -> s.getMetadata().getName())
                        .containsExactly("early");
                assertThat(events).doesNotContain("ADD db");
            } finally {
                informer.close();
            }
        }
    }
}

package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A client that stops watching while objects change (a controller restart) must not stall the server. */
class WatchCloseTest {

    @Test
    void closingWatchesDuringWritesLeavesTheServerAnswering() throws InterruptedException {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient writer = server.client();
            for (int round = 0; round < 5; round++) {
                KubernetesClient watcher = server.newClient();
                AtomicInteger seen = new AtomicInteger();
                SharedIndexInformer<Service> informer = watcher.services()
                        .inAnyNamespace()
                        .inform(new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(Service s) {
                                seen.incrementAndGet();
                            }

                            @Override
                            public void onUpdate(Service o, Service n) {
                                seen.incrementAndGet();
                            }

                            @Override
                            public void onDelete(Service s, boolean unknown) {}
                        });
                int before = seen.get();
                for (int i = 0; i < 20; i++) {
                    writer.services()
                            .resource(TestSupport.loadBalancer("r" + round + "-" + i))
                            .create();
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> seen.get() >= before + 20);
                int r = round;
                Thread busy = Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < 50; i++) {
                        writer.services()
                                .resource(TestSupport.loadBalancer("busy" + r + "-" + i))
                                .create();
                    }
                });
                informer.close();
                watcher.close();
                busy.join(10_000);
                String name = "after-" + round;
                long start = System.nanoTime();
                assertThatCode(() -> writer.services()
                                .resource(TestSupport.loadBalancer(name))
                                .create())
                        .doesNotThrowAnyException();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            }
        }
    }
}

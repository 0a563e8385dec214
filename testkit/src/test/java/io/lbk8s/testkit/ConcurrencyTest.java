package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

    @Test
    void optimisticConcurrencyLosesNoIncrement() throws Exception {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            client.configMaps()
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("counter")
                            .endMetadata()
                            .addToData("n", "0")
                            .build())
                    .create();
            int writers = 3;
            int increments = 6;
            AtomicInteger conflicts = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < increments; i++) {
                            while (true) {
                                ConfigMap cm =
                                        client.configMaps().withName("counter").get();
                                int n = Integer.parseInt(cm.getData().get("n"));
                                try {
                                    client.configMaps()
                                            .resource(new ConfigMapBuilder(cm)
                                                    .addToData("n", String.valueOf(n + 1))
                                                    .build())
                                            .update();
                                    break;
                                } catch (KubernetesClientException e) {
                                    assertThat(e.getCode()).isEqualTo(409);
                                    conflicts.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(client.configMaps().withName("counter").get().getData())
                    .containsEntry("n", String.valueOf(writers * increments));
        }
    }
}

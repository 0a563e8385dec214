package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** A list asked for in chunks ({@code limit} and {@code continue}) is answered as kube-apiserver answers it. */
class ListChunksTest extends WithServer {

    private void create(String namespace, String name) {
        Service service = new ServiceBuilder(TestSupport.loadBalancer(name))
                .editMetadata()
                .withNamespace(namespace)
                .endMetadata()
                .build();
        client.services().inNamespace(namespace).resource(service).create();
    }

    private ServiceList chunk(long limit, String continueToken) {
        return client.services()
                .inAnyNamespace()
                .list(new ListOptionsBuilder()
                        .withLimit(limit)
                        .withContinue(continueToken)
                        .build());
    }

    private static List<String> keys(ServiceList list) {
        return list.getItems().stream()
                .map(s -> s.getMetadata().getNamespace() + "/" + s.getMetadata().getName())
                .toList();
    }

    @Test
    void aLimitedListComesInKeyOrderedChunksFromOneMoment() {
        for (String name : List.of("web", "api", "db")) {
            create("shop", name);
        }
        for (String name : List.of("b", "a")) {
            create("default", name);
        }

        ServiceList first = chunk(2, null);
        assertThat(keys(first)).containsExactly("default/a", "default/b");
        assertThat(first.getMetadata().getContinue()).isNotEmpty();
        assertThat(first.getMetadata().getRemainingItemCount()).isEqualTo(3L);

        create("default", "c"); // after the first chunk: not in this list, whose later chunks are of its moment

        ServiceList second = chunk(2, first.getMetadata().getContinue());
        assertThat(keys(second)).containsExactly("shop/api", "shop/db");
        assertThat(second.getMetadata().getResourceVersion())
                .isEqualTo(first.getMetadata().getResourceVersion());
        assertThat(second.getMetadata().getRemainingItemCount()).isEqualTo(1L);

        ServiceList last = chunk(2, second.getMetadata().getContinue());
        assertThat(keys(last)).containsExactly("shop/web");
        assertThat(last.getMetadata().getContinue()).isNull();
        assertThat(last.getMetadata().getRemainingItemCount()).isNull();

        assertThat(keys(client.services().inAnyNamespace().list()))
                .containsExactlyInAnyOrder("default/a", "default/b", "default/c", "shop/api", "shop/db", "shop/web");
    }

    @Test
    void aContinueTokenNotKeptIsExpiredAndAForgedOneIsRefused() {
        create("default", "a");
        create("default", "b");
        String token = chunk(1, null).getMetadata().getContinue();
        String last = null;
        for (int i = 0; i < 10; i++) { // lists of newer moments push the first one out
            create("default", "x-" + i);
            last = chunk(1, null).getMetadata().getContinue();
        }
        String expired = token;
        assertThatThrownBy(() -> chunk(1, expired))
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(410));
        assertThat(keys(chunk(1, last))).containsExactly("default/b");
        assertThatThrownBy(() -> chunk(1, "bm90IGEgdG9rZW4"))
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(400));
    }

    @Test
    void anInformerListingInChunksSeesEveryObject() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            names.add("svc-" + i);
            create("default", "svc-" + i);
        }
        Set<String> seen = ConcurrentHashMap.newKeySet();
        var informer = client.services().inAnyNamespace().withLimit(3L).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service s) {
                seen.add(s.getMetadata().getName());
            }

            @Override
            public void onUpdate(Service before, Service after) {}

            @Override
            public void onDelete(Service s, boolean unknownFinalState) {}
        });
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == names.size());
            assertThat(seen).containsExactlyInAnyOrderElementsOf(names);
            // three chunks of at most 3 (the server's log of requests is written a little later)
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(server.recentRequests())
                            .filteredOn(r -> r.contains("/services?") && r.contains("limit=3") && !r.contains("watch"))
                            .hasSize(3));
        } finally {
            informer.close();
        }
    }
}

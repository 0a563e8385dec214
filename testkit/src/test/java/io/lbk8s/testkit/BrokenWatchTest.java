package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A watch broken in the middle of an event, and new watches refused until the server is mended. */
class BrokenWatchTest extends WithServer {

    @Test
    void anOpenWatchEndsWithTheStatusAndNewOnesAreRefusedUntilMended() throws Exception {
        CompletableFuture<WatcherException> closed = new CompletableFuture<>();
        Watch watch = client.services().inAnyNamespace().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Service resource) {}

            @Override
            public void onClose(WatcherException cause) {
                closed.complete(cause);
            }
        });
        server.dispatcher().breakWatches("", "services");
        WatcherException cause = closed.get(5, TimeUnit.SECONDS);
        watch.close();
        assertThat(cause).hasMessageContaining("watch event");

        KubernetesClientException refused = catchThrowableOfType(
                KubernetesClientException.class,
                () -> client.services().inAnyNamespace().watch(new Watcher<Service>() {
                    @Override
                    public void eventReceived(Action action, Service resource) {}

                    @Override
                    public void onClose(WatcherException cause) {}
                }));
        assertThat(refused.getCode()).isEqualTo(500);
        assertThat(client.services().inAnyNamespace().list().getItems())
                .as("lists still work")
                .isEmpty();

        server.dispatcher().mendWatches("", "services");
        client.services()
                .inAnyNamespace()
                .watch(new Watcher<Service>() {
                    @Override
                    public void eventReceived(Action action, Service resource) {}

                    @Override
                    public void onClose(WatcherException cause) {}
                })
                .close();
    }

    /** What lbk8s must guard against: a stock fabric8 informer stops for good after one such error. */
    @Test
    void aStockInformerStopsAfterOneWatchError() {
        SharedIndexInformer<Service> informer =
                client.services().inAnyNamespace().inform();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.dispatcher().isWatched("", "services"));
        server.dispatcher().breakWatches("", "services");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> informer.stopped().toCompletableFuture().isDone());
        assertThat(informer.isRunning()).isFalse();
        informer.close();
    }
}

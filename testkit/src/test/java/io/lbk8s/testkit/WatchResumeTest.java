package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A watch that resumes from a resourceVersion, as an informer does after its connection broke, gets what changed since,
 * deletions included, as from kube-apiserver's watch cache; or 410 Gone when that is no longer kept.
 */
class WatchResumeTest {

    @Test
    void aResumedWatchGetsTheChangesSinceItsVersionDeletionsIncluded() {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            client.services().resource(TestSupport.loadBalancer("kept")).create();
            client.services().resource(TestSupport.loadBalancer("deleted")).create();
            String listed = client.services()
                    .inNamespace("default")
                    .list()
                    .getMetadata()
                    .getResourceVersion();
            // the client is cut off here, and meanwhile:
            client.services().withName("deleted").delete();
            client.services().resource(TestSupport.loadBalancer("created")).create();

            List<String> events = new CopyOnWriteArrayList<>();
            try (Watch watch = client.services()
                    .inNamespace("default")
                    .withResourceVersion(listed)
                    .watch(recorder(events, null))) {
                await().atMost(Duration.ofSeconds(5)).until(() -> events.size() >= 2);
                assertThat(events).containsExactly("DELETED deleted", "ADDED created");
            }
        }
    }

    @Test
    void aDeletionHasAResourceVersionOfItsOwn() {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            Service created =
                    client.services().resource(TestSupport.loadBalancer("web")).create();
            String listed = client.services()
                    .inNamespace("default")
                    .list()
                    .getMetadata()
                    .getResourceVersion();
            List<String> versions = new CopyOnWriteArrayList<>();
            try (Watch watch = client.services()
                    .inNamespace("default")
                    .withResourceVersion(listed)
                    .watch(new Watcher<>() {
                        @Override
                        public void eventReceived(Action action, Service service) {
                            versions.add(service.getMetadata().getResourceVersion());
                        }

                        @Override
                        public void onClose(WatcherException cause) {}
                    })) {
                client.services().withName("web").delete();
                await().atMost(Duration.ofSeconds(5)).until(() -> !versions.isEmpty());
                assertThat(Long.parseLong(versions.getFirst()))
                        .isGreaterThan(Long.parseLong(created.getMetadata().getResourceVersion()));
                assertThat(Long.parseLong(client.services()
                                .inNamespace("default")
                                .list()
                                .getMetadata()
                                .getResourceVersion()))
                        .isEqualTo(Long.parseLong(versions.getFirst()));
            }
        }
    }

    @Test
    void aWatchFromAVersionNoLongerKeptEndsWith410Gone() {
        try (TestApiServer server = TestApiServer.start()) {
            KubernetesClient client = server.client();
            String listed = client.services()
                    .inNamespace("default")
                    .list()
                    .getMetadata()
                    .getResourceVersion();
            client.services().resource(TestSupport.loadBalancer("web")).create();
            server.reset(); // the server forgets what changed before

            List<String> events = new CopyOnWriteArrayList<>();
            AtomicReference<WatcherException> closed = new AtomicReference<>();
            try (Watch watch = client.services()
                    .inNamespace("default")
                    .withResourceVersion(listed)
                    .watch(recorder(events, closed))) {
                await().atMost(Duration.ofSeconds(5)).until(() -> closed.get() != null);
                assertThat(closed.get().isHttpGone())
                        .as("410 Gone: %s", closed.get().getMessage())
                        .isTrue();
                assertThat(events).isEmpty();
            }
        }
    }

    private static Watcher<Service> recorder(List<String> events, AtomicReference<WatcherException> closed) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, Service service) {
                events.add(action + " " + service.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
                if (closed != null) {
                    closed.set(cause);
                }
            }
        };
    }
}

package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.kube.EventRecorder.Type;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Events as {@code kubectl get events} shows them when lbk8s says the same thing again and again. */
class EventRecorderApiTest {
    static final Duration REFRESH = Duration.ofMinutes(5);
    static final String DOWN = "the peer does not answer, or expects another TCP MD5 password";

    FreshApiServer server;
    KubernetesClient client;
    MovableClock clock = new MovableClock(Instant.parse("2026-12-05T01:00:00Z"));
    EventRecorder events;
    Service web;

    @BeforeEach
    void start() throws Exception {
        server = FreshApiServer.start();
        client = server.client();
        web = client.services()
                .inNamespace("default")
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName("web")
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .addNewPort()
                        .withPort(80)
                        .endPort()
                        .endSpec()
                        .build())
                .create();
        events = new EventRecorder(client, "lbk8s-speaker", "node-1", clock, REFRESH);
    }

    @AfterEach
    void stop() {
        events.close();
        server.close();
    }

    @Test
    void aRepeatedEventIsOneEventWhoseCountAndLastTimestampGrowAtMostOncePerRefresh() {
        events.record(web, Type.Warning, "BGPSessionDown", DOWN);
        awaitEvents(1);
        Event first = onlyEvent();
        assertThat(first.getCount()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(10));
        events.record(web, Type.Warning, "BGPSessionDown", DOWN); // within the refresh: counted, not written
        clock.advance(REFRESH);
        events.record(web, Type.Warning, "BGPSessionDown", DOWN);

        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> onlyEvent().getCount() == 3);
        Event repeated = onlyEvent();
        assertThat(repeated.getMetadata().getName())
                .isEqualTo(first.getMetadata().getName());
        assertThat(repeated.getFirstTimestamp()).isEqualTo("2026-12-05T01:00:00Z");
        assertThat(repeated.getLastTimestamp()).isEqualTo("2026-12-05T01:05:10Z");
        assertThat(repeated.getMessage()).isEqualTo(DOWN);
    }

    @Test
    void anEventThatExpiredWhileItsConditionHoldsIsWrittenAgainWithItsCount() {
        events.record(web, Type.Warning, "BGPSessionDown", DOWN);
        awaitEvents(1);
        // kube-apiserver drops an Event an hour after its last write (--event-ttl)
        client.v1().events().inNamespace("default").delete();
        awaitEvents(0);

        clock.advance(REFRESH);
        events.record(web, Type.Warning, "BGPSessionDown", DOWN);

        awaitEvents(1);
        assertThat(onlyEvent().getCount()).isEqualTo(2);
        assertThat(onlyEvent().getMessage()).isEqualTo(DOWN);
    }

    @Test
    void anotherMessageForTheSameReasonIsANewEventAndAForgottenOneIsSaidAfresh() {
        events.record(web, Type.Warning, "BGPSessionDown", DOWN);
        events.record(web, Type.Warning, "BGPSessionDown", "hold timer expired");
        awaitEvents(2);

        events.forget("Service", "default", "web", "BGPSessionDown");
        events.record(web, Type.Warning, "BGPSessionDown", "hold timer expired");

        awaitEvents(3);
        assertThat(eventsOnWeb())
                .extracting(Event::getMessage, Event::getCount)
                .containsExactlyInAnyOrder(
                        tuple(DOWN, 1), tuple("hold timer expired", 1), tuple("hold timer expired", 1));
    }

    private void awaitEvents(int count) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(eventsOnWeb()).extracting(Event::getMessage).hasSize(count));
    }

    private Event onlyEvent() {
        List<Event> all = eventsOnWeb();
        assertThat(all).hasSize(1);
        return all.getFirst();
    }

    private List<Event> eventsOnWeb() {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "web".equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparing(e -> e.getMetadata().getName()))
                .toList();
    }

    static final class MovableClock extends Clock {
        private volatile Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}

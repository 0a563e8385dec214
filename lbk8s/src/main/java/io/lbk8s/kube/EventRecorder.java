package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events where users look ({@code kubectl describe}). fabric8 has no recorder of its own. The same
 * reason and message on the same object is one Event, not one per reconcile, so repeated reconciles of a pending
 * Service do not flood the namespace; as client-go's recorder does, its {@code count} and {@code lastTimestamp} grow
 * with each repeat, written at most once per {@link #DEFAULT_REFRESH} so that a condition said on every retry (a BGP
 * session down for one reason) costs few writes. That write also keeps the Event from expiring (kube-apiserver drops
 * Events an hour after their last write): one already gone is written again. Events are written in order on a thread
 * of their own, so that a slow API server delays the Events, not the reconcile loop.
 */
public final class EventRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    /** Well inside kube-apiserver's default Event lifetime (--event-ttl, 1 h). */
    public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);

    public enum Type {
        Normal,
        Warning
    }

    /** What was said of one object for one reason: the Event written, how often it was said, when it was written. */
    private record Said(String fingerprint, String eventName, int count, String firstTimestamp, Instant written) {
        Said repeatedAt(Instant now, Duration refresh) {
            boolean due = !now.isBefore(written.plus(refresh));
            return new Said(fingerprint, eventName, count + 1, firstTimestamp, due ? now : written);
        }
    }

    private final KubernetesClient client;
    private final String component;
    private final String host;
    private final Clock clock;
    private final Duration refresh;
    private final Map<String, Said> saidByKey = new ConcurrentHashMap<>();
    private final AtomicLong lastNameNanos = new AtomicLong();
    private final ExecutorService writer =
            Executors.newSingleThreadExecutor(Thread.ofVirtual().name("events").factory());

    public EventRecorder(KubernetesClient client, String component, String host) {
        this(client, component, host, Clock.systemUTC(), DEFAULT_REFRESH);
    }

    public EventRecorder(KubernetesClient client, String component, String host, Clock clock, Duration refresh) {
        this.client = client;
        this.component = component;
        this.host = host;
        this.clock = clock;
        this.refresh = refresh;
    }

    public void record(HasMetadata object, Type type, String reason, String message) {
        String key = objectKey(object) + "|" + reason;
        String fingerprint = type + "|" + reason + "|" + message;
        Instant now = clock.instant();
        String nowText = now.truncatedTo(ChronoUnit.SECONDS).toString();
        Said said;
        synchronized (saidByKey) {
            Said before = saidByKey.get(key);
            boolean repeat = before != null && before.fingerprint().equals(fingerprint);
            said = repeat
                    ? before.repeatedAt(now, refresh)
                    : new Said(fingerprint, eventName(object, now), 1, nowText, now);
            saidByKey.put(key, said);
            if (repeat && said.written().equals(before.written())) {
                return;
            }
        }
        Event event = event(object, type, reason, message, said, nowText);
        try {
            writer.execute(() -> write(event, key, said));
        } catch (RejectedExecutionException e) {
            log.debug("recorder closed; event {} dropped", key);
        }
    }

    private void write(Event event, String key, Said said) {
        var events = client.v1().events().inNamespace(event.getMetadata().getNamespace());
        try {
            if (said.count() > 1) {
                String patch =
                        "{\"count\":" + event.getCount() + ",\"lastTimestamp\":\"" + event.getLastTimestamp() + "\"}";
                try {
                    events.withName(event.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                    return;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                        throw e;
                    }
                    // expired (or deleted by hand) while the condition still holds: say it again
                }
            }
            events.resource(event).create();
        } catch (KubernetesClientException e) {
            saidByKey.remove(key, said);
            log.warn("could not record event {} on {}: {}", event.getReason(), key, e.getMessage());
        }
    }

    private Event event(HasMetadata object, Type type, String reason, String message, Said said, String now) {
        return new EventBuilder()
                .withNewMetadata()
                .withName(said.eventName())
                .withNamespace(namespaceOf(object))
                .endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder()
                        .withApiVersion(object.getApiVersion())
                        .withKind(object.getKind())
                        .withNamespace(object.getMetadata().getNamespace())
                        .withName(object.getMetadata().getName())
                        .withUid(object.getMetadata().getUid())
                        .withResourceVersion(object.getMetadata().getResourceVersion())
                        .build())
                .withType(type.name())
                .withReason(reason)
                .withMessage(message)
                .withCount(said.count())
                .withFirstTimestamp(said.firstTimestamp())
                .withLastTimestamp(now)
                .withNewSource()
                .withComponent(component)
                .withHost(host)
                .endSource()
                .withReportingComponent(component)
                .withReportingInstance(host)
                .build();
    }

    private static String objectKey(HasMetadata object) {
        return object.getKind() + "/" + object.getMetadata().getNamespace() + "/"
                + object.getMetadata().getName() + "/" + object.getMetadata().getUid();
    }

    private static String namespaceOf(HasMetadata object) {
        return object.getMetadata().getNamespace() == null
                ? "default"
                : object.getMetadata().getNamespace();
    }

    /**
     * As client-go names them, the object's name and the time in hexadecimal nanoseconds: the API server lists by
     * name, so one object's Events list in the order they were said. Never the same twice, even within a tick.
     */
    private String eventName(HasMetadata object, Instant now) {
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        return object.getMetadata().getName() + "."
                + Long.toHexString(lastNameNanos.updateAndGet(last -> Math.max(last + 1, nanos)));
    }

    /** Writes the Events already recorded (for at most a few seconds), then stops. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Forgets what was said about an object, e.g. once it is deleted. */
    public void forget(String kind, String namespace, String name) {
        String prefix = kind + "/" + namespace + "/" + name + "/";
        saidByKey.keySet().removeIf(k -> k.startsWith(prefix));
    }

    /** Forgets what was said for one reason, once it no longer holds: when it holds again, it is said again. */
    public void forget(String kind, String namespace, String name, String reason) {
        String prefix = kind + "/" + namespace + "/" + name + "/";
        saidByKey.keySet().removeIf(k -> k.startsWith(prefix) && k.endsWith("|" + reason));
    }

    /**
     * Says {@code message} for {@code reason}, which ends what {@code ended} said of the same object (a session up
     * after down, a conflict over): {@code ended} is forgotten, so that it is said again when it holds again.
     */
    public void recordInsteadOf(HasMetadata object, String ended, Type type, String reason, String message) {
        forget(
                object.getKind(),
                object.getMetadata().getNamespace(),
                object.getMetadata().getName(),
                ended);
        record(object, type, reason, message);
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events where users look ({@code kubectl describe}). fabric8 has no recorder of its own. The same
 * reason and message on the same object is written once, not on every reconcile, so repeated reconciles of a
 * pending Service do not flood the namespace. Events are written in order on a thread of their own, so that a
 * slow API server delays the Events, not the reconcile loop.
 */
public final class EventRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    public enum Type {
        Normal,
        Warning
    }

    private final KubernetesClient client;
    private final String component;
    private final String host;
    private final Map<String, String> lastByObject = new ConcurrentHashMap<>();
    private final ExecutorService writer =
            Executors.newSingleThreadExecutor(Thread.ofVirtual().name("events").factory());

    public EventRecorder(KubernetesClient client, String component, String host) {
        this.client = client;
        this.component = component;
        this.host = host;
    }

    public void record(HasMetadata object, Type type, String reason, String message) {
        String objectKey = object.getKind() + "/" + object.getMetadata().getNamespace() + "/"
                + object.getMetadata().getName() + "/" + object.getMetadata().getUid();
        String fingerprint = type + "|" + reason + "|" + message;
        if (fingerprint.equals(lastByObject.put(objectKey + "|" + reason, fingerprint))) {
            return;
        }
        String namespace = object.getMetadata().getNamespace() == null
                ? "default"
                : object.getMetadata().getNamespace();
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        var event = new EventBuilder()
                .withNewMetadata()
                .withName(object.getMetadata().getName() + "."
                        + UUID.randomUUID().toString().replace("-", "").substring(0, 16))
                .withNamespace(namespace)
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
                .withCount(1)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withNewSource()
                .withComponent(component)
                .withHost(host)
                .endSource()
                .withReportingComponent(component)
                .withReportingInstance(host)
                .build();
        try {
            writer.execute(() -> {
                try {
                    client.v1().events().inNamespace(namespace).resource(event).create();
                } catch (KubernetesClientException e) {
                    lastByObject.remove(objectKey + "|" + reason);
                    log.warn("could not record event {} on {}: {}", reason, objectKey, e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("recorder closed; event {} on {} dropped", reason, objectKey);
        }
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
        lastByObject.keySet().removeIf(k -> k.startsWith(prefix));
    }

    /** Forgets what was said for one reason, once it no longer holds: when it holds again, it is said again. */
    public void forget(String kind, String namespace, String name, String reason) {
        String prefix = kind + "/" + namespace + "/" + name + "/";
        lastByObject.keySet().removeIf(k -> k.startsWith(prefix) && k.endsWith("|" + reason));
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

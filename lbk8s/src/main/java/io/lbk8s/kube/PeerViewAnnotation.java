package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.lbk8s.peers.Liveness;
import io.lbk8s.peers.Membership;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a speaker's failure detector says, on the speaker's own Pod as the annotation {@value #KEY}, so that
 * {@code lbk8s status} and {@code kubectl describe pod} show which peers each speaker hears. Written only when it
 * changes, at most once a {@link #MIN_GAP}, from a thread of its own: the detector never waits for the API, and a
 * steady cluster writes nothing.
 */
public final class PeerViewAnnotation implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerViewAnnotation.class);
    public static final String KEY = "lbk8s.io/failure-detector";
    static final Duration MIN_GAP = Duration.ofSeconds(1);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The annotation's content: whether this node may announce (or why not), and each peer's liveness. */
    public record View(boolean ready, String reason, Map<String, String> peers) {
        public View {
            peers = Map.copyOf(peers);
        }

        public static View of(Membership.Snapshot snapshot) {
            Map<String, String> peers = new TreeMap<>();
            snapshot.peers().forEach((node, view) -> peers.put(node, name(view.liveness())));
            return new View(snapshot.ready(), snapshot.reason(), peers);
        }

        static String name(Liveness liveness) {
            return liveness.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        String json() {
            Map<String, Object> tree = new LinkedHashMap<>();
            tree.put("ready", ready);
            tree.put("reason", reason);
            tree.put("peers", new TreeMap<>(peers));
            return JSON.writeValueAsString(tree);
        }

        /** The view in a Pod's annotation, if it has a readable one. */
        @SuppressWarnings("unchecked")
        public static Optional<View> of(Pod pod) {
            Map<String, String> annotations = pod.getMetadata().getAnnotations();
            String text = annotations == null ? null : annotations.get(KEY);
            if (text == null) {
                return Optional.empty();
            }
            try {
                Map<String, Object> tree = JSON.readValue(text, Map.class);
                Map<String, String> peers = new TreeMap<>();
                if (tree.get("peers") instanceof Map<?, ?> map) {
                    map.forEach((k, v) -> peers.put(String.valueOf(k), String.valueOf(v)));
                }
                return Optional.of(
                        new View(Boolean.TRUE.equals(tree.get("ready")), String.valueOf(tree.get("reason")), peers));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;
    private final Thread writer;
    private volatile View pending;
    private View written;
    private volatile boolean closed;

    public PeerViewAnnotation(KubernetesClient client, String namespace, String pod) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
        this.writer = Thread.ofVirtual().name("peer-view-annotation").start(this::run);
    }

    /** The latest view; only the last of a burst is written. */
    public void publish(View view) {
        pending = view;
        LockSupport.unpark(writer);
    }

    private void run() {
        while (!closed) {
            View next = pending;
            if (next == null || next.equals(written)) {
                LockSupport.park();
                continue;
            }
            try {
                OwnPod.resource(client, namespace, pod)
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                client.getKubernetesSerialization()
                                        .asJson(Map.of("metadata", Map.of("annotations", Map.of(KEY, next.json())))));
                written = next;
            } catch (KubernetesClientException e) {
                log.debug(
                        "could not write the failure detector's view on pod {}/{}: {}", namespace, pod, e.getMessage());
            }
            LockSupport.parkNanos(MIN_GAP.toNanos());
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(writer);
    }
}

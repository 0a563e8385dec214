package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one MetalLB-style status object of one kind per subject (a Service, a BGP peer) of this node, labelled with
 * the node, and none for the subjects it no longer has, including those an earlier run of its speaker left. Writes run
 * in order on a thread of their own, so that a slow API server delays the objects, never what the speaker announces.
 * A write that fails is tried again, from the API's view, until it succeeds or a newer one replaces it: nothing else
 * would write again while what this node announces stays the same.
 *
 * @param <K> what an object is about
 * @param <V> what its status says of it
 */
abstract class NodeStatusObjects<K, V> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeStatusObjects.class);

    static final String NODE_LABEL = "metallb.io/node";
    /** A refused write is tried again after this, doubling up to {@link #LAST_RETRY_MILLIS}. */
    static final long FIRST_RETRY_MILLIS = 200;

    static final long LAST_RETRY_MILLIS = 10_000;

    /**
     * What the objects of one kind are.
     *
     * @param prefix         starts each object's name, which is the same at every restart of the speaker
     * @param nameKey        the text of a subject that is hashed into the name
     * @param subjectLabels  the labels besides the node's that say which subject an object is about
     * @param subjectOf      reads the subject back from an object's labels
     * @param status         the object's status for a subject and what this node says of it, besides the node
     */
    record Shape<K, V>(
            ResourceDefinitionContext context,
            String prefix,
            Function<K, String> nameKey,
            Function<K, Map<String, String>> subjectLabels,
            Function<Map<String, String>, K> subjectOf,
            BiFunction<K, V, Map<String, Object>> status) {}

    private final Shape<K, V> shape;
    private final KubernetesClient client;
    private final String namespace;
    private final String node;
    private final Predicate<String> failedNow;
    private final ScheduledExecutorService writer;
    /** What the latest {@link #publish} asked for (its caller's thread). */
    private Map<K, V> written = Map.of();
    /** Set by {@link #rewriteAll}, taken by the next {@link #publish} (its caller's thread). */
    private boolean resyncNext;
    /** Counts the publishes, so that a retry that a newer write replaced does nothing. */
    private final AtomicLong publishes = new AtomicLong();
    /** Whether the writer's next write lists this node's objects first (the writer's thread). */
    private boolean fromApi = true;

    /**
     * @param failedNow whether a node has failed by what this speaker knows when the write runs, which may be later
     *                  than the plan that named it failed: a node that came back meanwhile keeps its objects
     */
    NodeStatusObjects(
            Shape<K, V> shape, KubernetesClient client, String namespace, String node, Predicate<String> failedNow) {
        this.shape = shape;
        this.client = client;
        this.namespace = namespace;
        this.node = node;
        this.failedNow = failedNow;
        this.writer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name(shape.context().getPlural()).factory());
    }

    /**
     * Makes this node's objects match {@code wanted}; where it writes one, it removes the objects that
     * {@code failedNodes} left for the same subject. Called from one thread.
     */
    protected void publish(Map<K, V> wanted, Set<String> failedNodes) {
        Map<K, V> now = Map.copyOf(wanted);
        Set<String> failed = Set.copyOf(failedNodes);
        Map<K, V> before = written;
        boolean resync = resyncNext;
        written = now;
        resyncNext = false;
        long publish = publishes.incrementAndGet();
        submit(() -> {
            if (resync) {
                fromApi = true;
            }
            write(before, now, failed, publish, FIRST_RETRY_MILLIS);
        });
    }

    private void write(Map<K, V> before, Map<K, V> wanted, Set<String> failed, long publish, long retryMillis) {
        var resources = client.genericKubernetesResources(shape.context()).inNamespace(namespace);
        try {
            if (fromApi) {
                for (GenericKubernetesResource stale :
                        resources.withLabel(NODE_LABEL, node).list().getItems()) {
                    if (!wanted.containsKey(
                            shape.subjectOf().apply(stale.getMetadata().getLabels()))) {
                        resources.withName(stale.getMetadata().getName()).delete();
                    }
                }
                fromApi = false;
                before = Map.of();
            }
            for (var entry : wanted.entrySet()) {
                if (!entry.getValue().equals(before.get(entry.getKey()))) {
                    upsert(entry.getKey(), entry.getValue(), failed, before.containsKey(entry.getKey()));
                }
            }
            for (K gone : before.keySet()) {
                if (!wanted.containsKey(gone)) {
                    resources.withName(nameOf(gone)).delete();
                }
            }
        } catch (KubernetesClientException e) {
            log.warn(
                    "could not write {} objects: {}; trying again in {} ms",
                    shape.context().getKind(),
                    e.getMessage(),
                    retryMillis);
            fromApi = true;
            long next = Math.min(retryMillis * 2, LAST_RETRY_MILLIS);
            schedule(
                    () -> {
                        if (publishes.get() == publish) { // a newer write starts from the API's view by itself
                            write(Map.of(), wanted, failed, publish, next);
                        }
                    },
                    retryMillis);
        }
    }

    private void submit(Runnable task) {
        schedule(task, 0);
    }

    private void schedule(Runnable task, long delayMillis) {
        try {
            writer.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug(
                    "{} objects: not written, the speaker is stopping",
                    shape.context().getKind());
        }
    }

    private void upsert(K subject, V value, Set<String> failed, boolean writtenBefore) {
        Map<String, String> subjectLabels = shape.subjectLabels().apply(subject);
        Map<String, String> labels = new HashMap<>(subjectLabels);
        labels.put(NODE_LABEL, node);
        Map<String, Object> status = new HashMap<>(shape.status().apply(subject, value));
        status.put("node", node);
        CustomResources.writeStatus(client, shape.context(), namespace, nameOf(subject), labels, status, writtenBefore);
        if (failed.isEmpty()) {
            return;
        }
        // A node that died or lost the network could not delete its own object; the node that took the subject over
        // does, so that users see who holds it now. Only if it is still failed, and only the version listed: a write
        // runs after its plan, and a node that came back and wrote its object again in between keeps it.
        var resources = client.genericKubernetesResources(shape.context()).inNamespace(namespace);
        for (GenericKubernetesResource other :
                resources.withLabels(subjectLabels).list().getItems()) {
            String owner = other.getMetadata().getLabels().get(NODE_LABEL);
            if (failed.contains(owner) && failedNow.test(owner)) {
                try {
                    resources.resource(other).lockResourceVersion().delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        throw e;
                    }
                    log.debug(
                            "{} of node {} written again meanwhile: kept",
                            shape.context().getKind(),
                            owner);
                }
            }
        }
    }

    /**
     * The next {@link #publish} starts from the API's view: it removes this node's objects it does not want and writes
     * every one it wants, even where the last publish wanted the same.
     */
    protected void rewriteAll() {
        written = Map.of();
        resyncNext = true;
    }

    /** A stable name, so that a restarted speaker finds its objects again: <prefix>-<node>-<hash of the subject>. */
    String nameOf(K subject) {
        return stableName(shape.prefix(), node, shape.nameKey().apply(subject));
    }

    /** {@code <prefix>-<node>-<hash of key>}, a valid object name however long the node's name is. */
    static String stableName(String prefix, String node, String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            String nodePart = node.toLowerCase().replaceAll("[^a-z0-9-]", "-");
            if (nodePart.length() > 40) {
                nodePart = nodePart.substring(0, 40);
            }
            return (prefix + "-" + nodePart + "-" + HexFormat.of().formatHex(digest, 0, 6)).replaceAll("-+", "-");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Deletes this node's objects (graceful shutdown: they are no longer true), waiting a bounded time. */
    public void withdraw(long timeoutMillis) {
        publish(Map.of(), Set.of());
        writer.shutdown();
        try {
            writer.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.service.ServiceKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one MetalLB-style status object (a ServiceL2Status, a ServiceBGPStatus) per Service this node announces, and
 * none for the others (removing
 * those a failed previous leader left behind, and only those: a live node removes its own when it stops announcing,
 * and removing it for it could race with its taking the Service back). Writes run in order on a thread of their own so
 * that a slow API server never delays answering ARP.
 */
public class ServiceStatuses implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServiceStatuses.class);

    public static final String NODE_LABEL = "metallb.io/node";
    public static final String SERVICE_NAME_LABEL = "metallb.io/service-name";
    public static final String SERVICE_NAMESPACE_LABEL = "metallb.io/service-namespace";

    /**
     * One kind of these objects.
     *
     * @param prefix  starts each object's name, which is the same at every restart of the speaker
     * @param detail  the name of the status field that lists what {@link #publish} gives per Service (interfaces,
     *                peers), and how each is written in it
     */
    public record Kind(
            ResourceDefinitionContext context, String prefix, String detail, Function<String, Object> item) {}

    private final Kind kind;
    private final KubernetesClient client;
    private final String namespace;
    private final String node;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("service-status").factory());
    private Map<ServiceKey, Set<String>> written = Map.of();
    private boolean cleanedUp;

    protected ServiceStatuses(Kind kind, KubernetesClient client, String namespace, String node) {
        this.kind = kind;
        this.client = client;
        this.namespace = namespace;
        this.node = node;
    }

    /**
     * Makes this node's objects match {@code detailsByService}, and removes the objects of the Services it writes
     * that {@code failedNodes} left behind; called from one thread.
     */
    public void publish(Map<ServiceKey, Set<String>> detailsByService, Set<String> failedNodes) {
        Map<ServiceKey, Set<String>> wanted = Map.copyOf(detailsByService);
        Set<String> failed = Set.copyOf(failedNodes);
        Map<ServiceKey, Set<String>> before = written;
        written = wanted;
        writer.execute(() -> write(before, wanted, failed));
    }

    private void write(Map<ServiceKey, Set<String>> before, Map<ServiceKey, Set<String>> wanted, Set<String> failed) {
        var resources = client.genericKubernetesResources(kind.context()).inNamespace(namespace);
        try {
            if (!cleanedUp) {
                // statuses left by an earlier run of this node's speaker
                for (GenericKubernetesResource stale :
                        resources.withLabel(NODE_LABEL, node).list().getItems()) {
                    Map<String, String> labels = stale.getMetadata().getLabels();
                    var key = new ServiceKey(labels.get(SERVICE_NAMESPACE_LABEL), labels.get(SERVICE_NAME_LABEL));
                    if (!wanted.containsKey(key)) {
                        resources.withName(stale.getMetadata().getName()).delete();
                    }
                }
                cleanedUp = true;
                before = Map.of();
            }
            for (var entry : wanted.entrySet()) {
                if (!entry.getValue().equals(before.get(entry.getKey()))) {
                    upsert(entry.getKey(), entry.getValue(), failed);
                }
            }
            for (ServiceKey gone : before.keySet()) {
                if (!wanted.containsKey(gone)) {
                    resources.withName(nameOf(gone)).delete();
                }
            }
        } catch (KubernetesClientException e) {
            log.warn("could not write {} objects: {}", kind.context().getKind(), e.getMessage());
            cleanedUp = false; // start over from the API's view next time
        }
    }

    private void upsert(ServiceKey service, Set<String> details, Set<String> failed) {
        Map<String, String> labels = Map.of(
                NODE_LABEL, node, SERVICE_NAME_LABEL, service.name(), SERVICE_NAMESPACE_LABEL, service.namespace());
        Map<String, Object> status = Map.of(
                "node",
                node,
                "serviceName",
                service.name(),
                "serviceNamespace",
                service.namespace(),
                kind.detail(),
                details.stream().sorted().map(kind.item()).toList());
        CustomResources.writeStatus(client, kind.context(), namespace, nameOf(service), labels, status);
        var resources = client.genericKubernetesResources(kind.context()).inNamespace(namespace);
        // A node that died or lost the network could not delete its own object; the new leader does, so that
        // users see one announcing node per Service.
        for (GenericKubernetesResource other : resources
                .withLabel(SERVICE_NAME_LABEL, service.name())
                .withLabel(SERVICE_NAMESPACE_LABEL, service.namespace())
                .list()
                .getItems()) {
            if (failed.contains(other.getMetadata().getLabels().get(NODE_LABEL))) {
                resources.withName(other.getMetadata().getName()).delete();
            }
        }
    }

    /**
     * The next {@link #publish} writes every object again: while this node was away (frozen, cut off) the new leader
     * removed them.
     */
    public void rewriteAll() {
        written = Map.of();
    }

    /** A stable name, so that a restarted speaker finds its objects again: <prefix>-<node>-<hash of the Service>. */
    String nameOf(ServiceKey service) {
        return stableName(kind.prefix(), node, service.namespace() + "/" + service.name());
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

    /** Deletes this node's objects (graceful shutdown: the next node writes its own), waiting a bounded time. */
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

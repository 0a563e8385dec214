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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one MetalLB-style ServiceL2Status per Service this node announces, and none for the others (removing
 * those a failed previous leader left behind, and only those: a live node removes its own when it stops announcing,
 * and removing it for it could race with its taking the Service back). Writes run in order on a thread of their own so
 * that a slow API server never delays answering ARP.
 */
public final class ServiceL2Statuses implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ServiceL2Statuses.class);

    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("ServiceL2Status", "servicel2statuses");
    public static final String NODE_LABEL = "metallb.io/node";
    public static final String SERVICE_NAME_LABEL = "metallb.io/service-name";
    public static final String SERVICE_NAMESPACE_LABEL = "metallb.io/service-namespace";

    private final KubernetesClient client;
    private final String namespace;
    private final String node;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("l2-status").factory());
    private Map<ServiceKey, Set<String>> written = Map.of();
    private boolean cleanedUp;

    public ServiceL2Statuses(KubernetesClient client, String namespace, String node) {
        this.client = client;
        this.namespace = namespace;
        this.node = node;
    }

    /**
     * Makes this node's objects match {@code interfacesByService}, and removes the objects of the Services it writes
     * that {@code failedNodes} left behind; called from one thread.
     */
    public void publish(Map<ServiceKey, Set<String>> interfacesByService, Set<String> failedNodes) {
        Map<ServiceKey, Set<String>> wanted = Map.copyOf(interfacesByService);
        Set<String> failed = Set.copyOf(failedNodes);
        Map<ServiceKey, Set<String>> before = written;
        written = wanted;
        writer.execute(() -> write(before, wanted, failed));
    }

    private void write(Map<ServiceKey, Set<String>> before, Map<ServiceKey, Set<String>> wanted, Set<String> failed) {
        var resources = client.genericKubernetesResources(CONTEXT).inNamespace(namespace);
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
            log.warn("could not write ServiceL2Status objects: {}", e.getMessage());
            cleanedUp = false; // start over from the API's view next time
        }
    }

    private void upsert(ServiceKey service, Set<String> interfaces, Set<String> failed) {
        Map<String, String> labels = Map.of(
                NODE_LABEL, node, SERVICE_NAME_LABEL, service.name(), SERVICE_NAMESPACE_LABEL, service.namespace());
        Map<String, Object> status = Map.of(
                "node", node,
                "serviceName", service.name(),
                "serviceNamespace", service.namespace(),
                "interfaces",
                        interfaces.stream().sorted().map(i -> Map.of("name", i)).toList());
        CustomResources.writeStatus(client, CONTEXT, namespace, nameOf(service), labels, status);
        var resources = client.genericKubernetesResources(CONTEXT).inNamespace(namespace);
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

    /** A stable name, so that a restarted speaker finds its objects again: l2-<node>-<hash of the Service>. */
    String nameOf(ServiceKey service) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((service.namespace() + "/" + service.name()).getBytes(StandardCharsets.UTF_8));
            String nodePart = node.toLowerCase().replaceAll("[^a-z0-9-]", "-");
            if (nodePart.length() > 40) {
                nodePart = nodePart.substring(0, 40);
            }
            return ("l2-" + nodePart + "-" + HexFormat.of().formatHex(digest, 0, 6)).replaceAll("-+", "-");
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

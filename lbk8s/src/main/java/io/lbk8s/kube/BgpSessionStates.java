package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MetalLB-style BGPSessionState per BGPPeer this node holds a session with ({@code kubectl get bgpsessionstates}
 * shows each node's session to each router), and none for peers it no longer has. Written in order on a thread of
 * its own, so that a slow API server delays the objects, not the sessions.
 */
public final class BgpSessionStates implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BgpSessionStates.class);

    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("BGPSessionState", "bgpsessionstates");
    public static final String NODE_LABEL = ServiceStatuses.NODE_LABEL;
    public static final String PEER_LABEL = "metallb.io/peer";

    /** What the object says of one session: MetalLB's fields; lbk8s has no VRFs, so vrf is always empty. */
    public record State(String peer, String bgpStatus, String bfdStatus) {}

    private final KubernetesClient client;
    private final String namespace;
    private final String node;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("bgp-session-state").factory());
    private Map<String, State> written = Map.of();
    private boolean cleanedUp;

    public BgpSessionStates(KubernetesClient client, String namespace, String node) {
        this.client = client;
        this.namespace = namespace;
        this.node = node;
    }

    /** Makes this node's objects match {@code byPeer}; called from one thread. */
    public void publish(Map<String, State> byPeer) {
        Map<String, State> wanted = Map.copyOf(byPeer);
        Map<String, State> before = written;
        written = wanted;
        writer.execute(() -> write(before, wanted));
    }

    private void write(Map<String, State> before, Map<String, State> wanted) {
        var resources = client.genericKubernetesResources(CONTEXT).inNamespace(namespace);
        try {
            if (!cleanedUp) {
                // objects left by an earlier run of this node's speaker, for peers it no longer has
                for (GenericKubernetesResource stale :
                        resources.withLabel(NODE_LABEL, node).list().getItems()) {
                    if (!wanted.containsKey(stale.getMetadata().getLabels().get(PEER_LABEL))) {
                        resources.withName(stale.getMetadata().getName()).delete();
                    }
                }
                cleanedUp = true;
                before = Map.of();
            }
            for (State state : wanted.values()) {
                if (!state.equals(before.get(state.peer()))) {
                    Map<String, Object> status = new HashMap<>();
                    status.put("node", node);
                    status.put("peer", state.peer());
                    status.put("vrf", "");
                    status.put("bgpStatus", state.bgpStatus());
                    status.put("bfdStatus", state.bfdStatus());
                    CustomResources.writeStatus(
                            client,
                            CONTEXT,
                            namespace,
                            nameOf(state.peer()),
                            Map.of(NODE_LABEL, node, PEER_LABEL, state.peer()),
                            status);
                }
            }
            for (String gone : before.keySet()) {
                if (!wanted.containsKey(gone)) {
                    resources.withName(nameOf(gone)).delete();
                }
            }
        } catch (KubernetesClientException e) {
            log.warn("could not write BGPSessionState objects: {}", e.getMessage());
            cleanedUp = false; // start over from the API's view next time
        }
    }

    /** A stable name, so that a restarted speaker finds its objects again: session-<node>-<hash of the peer>. */
    String nameOf(String peer) {
        return ServiceStatuses.stableName("session", node, peer);
    }

    /** Deletes this node's objects (graceful shutdown: its sessions end), waiting a bounded time. */
    public void withdraw(long timeoutMillis) {
        publish(Map.of());
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

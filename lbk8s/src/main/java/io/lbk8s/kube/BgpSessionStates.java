package io.lbk8s.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One MetalLB-style BGPSessionState per BGPPeer this node holds a session with ({@code kubectl get bgpsessionstates}
 * shows each node's session to each router), and none for peers it no longer has. Written in order on a thread of
 * its own, so that a slow API server delays the objects, not the sessions.
 */
public final class BgpSessionStates extends NodeStatusObjects<String, BgpSessionStates.State> {
    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("BGPSessionState", "bgpsessionstates");
    public static final String NODE_LABEL = NodeStatusObjects.NODE_LABEL;
    public static final String PEER_LABEL = "metallb.io/peer";

    /**
     * What the object says of one session: MetalLB's fields (lbk8s has no VRFs, so vrf is always empty), and
     * lbk8s's own {@code disabledFamilies} only while RFC 7606's AFI/SAFI disable has taken a family off the session
     * (under MetalLB's own CRD that field is pruned, and the object is MetalLB's exactly).
     */
    public record State(String peer, String bgpStatus, String bfdStatus, List<String> disabledFamilies) {
        public State {
            disabledFamilies = List.copyOf(disabledFamilies);
        }
    }

    public BgpSessionStates(KubernetesClient client, String namespace, String node) {
        super(
                new Shape<String, State>(
                        CONTEXT,
                        "session",
                        peer -> peer,
                        peer -> Map.of(PEER_LABEL, peer),
                        labels -> labels.get(PEER_LABEL),
                        (peer, state) -> {
                            Map<String, Object> status = new HashMap<>();
                            status.put("peer", state.peer());
                            status.put("vrf", "");
                            status.put("bgpStatus", state.bgpStatus());
                            status.put("bfdStatus", state.bfdStatus());
                            if (!state.disabledFamilies().isEmpty()) {
                                status.put("disabledFamilies", state.disabledFamilies());
                            }
                            return status;
                        }),
                client,
                namespace,
                node,
                other -> false);
    }

    /** Makes this node's objects match {@code byPeer}, keyed by {@link State#peer}; called from one thread. */
    public void publish(Map<String, State> byPeer) {
        // a session is this node's own: no other node's object for the same peer is ever this node's to remove
        publish(byPeer, Set.of());
    }
}

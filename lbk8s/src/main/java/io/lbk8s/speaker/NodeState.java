package io.lbk8s.speaker;

import io.lbk8s.peers.Liveness;
import java.util.Map;

/**
 * What the leader choice needs to know of a node, copied out of the Node and the speaker Pods so that the choice
 * stays a pure function every speaker computes alike, and what this speaker's failure detector says of it: the API
 * learns of a dead node only after tens of seconds, the detector within a fraction of one.
 */
public record NodeState(
        String name,
        Map<String, String> labels,
        boolean ready,
        boolean networkUnavailable,
        boolean speakerReady,
        Liveness liveness) {

    /** Talos and kubeadm put this label on control-plane nodes; MetalLB honours it. */
    public static final String EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";

    public NodeState {
        labels = Map.copyOf(labels);
    }

    /** A node as the API alone describes it (the detector has not heard its speaker). */
    public NodeState(
            String name, Map<String, String> labels, boolean ready, boolean networkUnavailable, boolean speakerReady) {
        this(name, labels, ready, networkUnavailable, speakerReady, Liveness.NOT_HEARD);
    }

    public NodeState withLiveness(Liveness judged) {
        return new NodeState(name, labels, ready, networkUnavailable, speakerReady, judged);
    }

    public boolean excluded() {
        return labels.containsKey(EXCLUDE_LABEL);
    }
}

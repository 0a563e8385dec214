package io.lbk8s.speaker;

import java.util.Map;

/**
 * What the leader choice needs to know of a node, copied out of the Node and the speaker Pods so that the choice
 * stays a pure function every speaker computes alike.
 */
public record NodeState(
        String name,
        Map<String, String> labels,
        boolean ready,
        boolean networkUnavailable,
        boolean speakerReady) {

    /** Talos and kubeadm put this label on control-plane nodes; MetalLB honours it. */
    public static final String EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";

    public NodeState {
        labels = Map.copyOf(labels);
    }

    public boolean excluded() {
        return labels.containsKey(EXCLUDE_LABEL);
    }
}

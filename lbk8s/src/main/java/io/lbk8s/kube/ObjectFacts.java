package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Optional;

/** What lbk8s reads the same way from a Pod, a Node or an EndpointSlice, whichever role reads it. */
public final class ObjectFacts {
    private ObjectFacts() {}

    /** The label by which an EndpointSlice names its Service. */
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    /** The node's first InternalIP, where its speaker (hostNetwork) listens. */
    public static Optional<String> internalIp(Node node) {
        if (node.getStatus() == null || node.getStatus().getAddresses() == null) {
            return Optional.empty();
        }
        return node.getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType()) && a.getAddress() != null)
                .map(a -> a.getAddress())
                .findFirst();
    }

    /** Whether the Pod's Ready condition is True. */
    public static boolean isReady(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition condition : pod.getStatus().getConditions()) {
            if ("Ready".equals(condition.getType())) {
                return "True".equals(condition.getStatus());
            }
        }
        return false;
    }
}

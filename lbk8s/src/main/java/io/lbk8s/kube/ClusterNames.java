package io.lbk8s.kube;

import java.util.Map;

/**
 * Names of lbk8s's own objects that more than one role must agree on: the installer writes them, the controller and
 * the speaker find each other by them, and {@code lbk8s status} reads them.
 */
public final class ClusterNames {
    private ClusterNames() {}

    /** The Lease the controller replicas elect their leader on, in the controller's namespace. */
    public static final String CONTROLLER_LEASE = "lbk8s-controller";

    /** The labels of the speaker Pods, as the DaemonSet's Pod template sets them. */
    public static final Map<String, String> SPEAKER_POD_LABELS =
            Map.of("app.kubernetes.io/name", "lbk8s", "app.kubernetes.io/component", "speaker");
}

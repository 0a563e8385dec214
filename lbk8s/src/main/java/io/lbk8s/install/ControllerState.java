package io.lbk8s.install;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * What the controllers keep in the API besides the Services' status: the leader election's Lease, which says which
 * replica leads, and an IPAddressClaim for every address handed out. {@code lbk8s status} reads both; {@code lbk8s
 * uninstall} deletes the claims.
 */
public final class ControllerState {
    private ControllerState() {}

    /** The Lease (coordination.k8s.io/v1) in the install namespace; the election names it the same. */
    public static final String LEASE = Manifests.CONTROLLER;

    public static final ResourceDefinitionContext CLAIMS = new ResourceDefinitionContext.Builder()
            .withGroup("lbk8s.io")
            .withVersion("v1alpha1")
            .withKind("IPAddressClaim")
            .withPlural("ipaddressclaims")
            .withNamespaced(false)
            .build();

    public static final String CLAIMS_CRD = CLAIMS.getPlural() + "." + CLAIMS.getGroup();
}

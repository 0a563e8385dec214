package io.lbk8s.controller;

import java.util.List;

/** The Service annotations lbk8s reads and writes, under every name users bring. */
public final class Annotations {
    private Annotations() {}

    public static final String LBK8S_POOL = "lbk8s.io/address-pool";
    public static final String LBK8S_IPS = "lbk8s.io/loadBalancerIPs";
    public static final String LBK8S_SHARED = "lbk8s.io/allow-shared-ip";
    public static final String METALLB_POOL = "metallb.io/address-pool";
    public static final String METALLB_IPS = "metallb.io/loadBalancerIPs";
    public static final String METALLB_SHARED = "metallb.io/allow-shared-ip";
    public static final String DEPRECATED_POOL = "metallb.universe.tf/address-pool";
    public static final String DEPRECATED_IPS = "metallb.universe.tf/loadBalancerIPs";
    public static final String DEPRECATED_SHARED = "metallb.universe.tf/allow-shared-ip";

    /** Written by the controller, as MetalLB writes it: the pool a Service's addresses came from. */
    public static final String ALLOCATED_FROM_POOL = "metallb.io/ip-allocated-from-pool";

    static final List<String> POOL = List.of(LBK8S_POOL, METALLB_POOL, DEPRECATED_POOL);
    static final List<String> IPS = List.of(LBK8S_IPS, METALLB_IPS, DEPRECATED_IPS);
    static final List<String> SHARED = List.of(LBK8S_SHARED, METALLB_SHARED, DEPRECATED_SHARED);

    static boolean deprecated(String name) {
        return name.startsWith("metallb.universe.tf/");
    }

    static String replacementOf(String deprecatedName) {
        return "metallb.io/" + deprecatedName.substring("metallb.universe.tf/".length());
    }
}

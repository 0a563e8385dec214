package io.lbk8s.service;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

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

    /** What the controller does when another host uses the Service's address: keep or move (see ConflictPolicy). */
    public static final String ADDRESS_CONFLICT = "lbk8s.io/address-conflict";

    /** Written by the controller, as MetalLB writes it: the pool a Service's addresses came from. */
    public static final String ALLOCATED_FROM_POOL = "metallb.io/ip-allocated-from-pool";

    /** What MetalLB wrote before it moved to metallb.io (MetalLB removes it; lbk8s leaves it alone). */
    public static final String DEPRECATED_ALLOCATED_FROM_POOL = "metallb.universe.tf/ip-allocated-from-pool";

    static final List<String> POOL = List.of(LBK8S_POOL, METALLB_POOL, DEPRECATED_POOL);
    static final List<String> IPS = List.of(LBK8S_IPS, METALLB_IPS, DEPRECATED_IPS);
    static final List<String> SHARED = List.of(LBK8S_SHARED, METALLB_SHARED, DEPRECATED_SHARED);

    /** The names users set to ask something of lbk8s: what a misspelled name is compared with. */
    static final List<String> REQUESTS =
            Stream.of(POOL, IPS, SHARED).flatMap(List::stream).toList();

    /**
     * The prefixes under which every name must be one of {@link #KNOWN}: another name there is a typo (or from a
     * MetalLB newer than this list) that would otherwise be ignored in silence.
     */
    static final List<String> CHECKED_PREFIXES = List.of("lbk8s.io/", "metallb.io/", "metallb.universe.tf/");

    /**
     * Every Service annotation under {@link #CHECKED_PREFIXES} that has a meaning: those users set, and the pool
     * annotation lbk8s and MetalLB write. MetalLB's controller (controller/service.go) defines exactly these, under
     * metallb.io and metallb.universe.tf; its BGP and L2 settings live in custom resources, not annotations.
     */
    static final Set<String> KNOWN = Stream.concat(
                    REQUESTS.stream(), Stream.of(ALLOCATED_FROM_POOL, DEPRECATED_ALLOCATED_FROM_POOL, ADDRESS_CONFLICT))
            .collect(Collectors.toUnmodifiableSet());

    static boolean deprecated(String name) {
        return name.startsWith("metallb.universe.tf/");
    }

    static String replacementOf(String deprecatedName) {
        return "metallb.io/" + deprecatedName.substring("metallb.universe.tf/".length());
    }
}

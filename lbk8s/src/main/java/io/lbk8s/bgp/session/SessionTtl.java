package io.lbk8s.bgp.session;

import io.lbk8s.bgp.PeerSpec;
import java.util.OptionalInt;

/**
 * The TTL (IPv6: hop limit) a session's TCP segments leave with, as FRR sets it, which MetalLB's FRR mode relies on:
 * an eBGP peer must be directly connected (TTL 1, so a segment routed even once is dropped and the connection fails at
 * once with "no route to host" instead of peering with a router the user did not mean) unless the BGPPeer says
 * {@code ebgpMultiHop}, which allows any distance (255, FRR's {@code ebgp-multihop} without a count). An iBGP session
 * keeps the system's default, as FRR and BIRD leave it routed freely.
 */
public final class SessionTtl {
    private SessionTtl() {}

    public static final int DIRECTLY_CONNECTED = 1;
    public static final int ANY_DISTANCE = 255;

    /** The TTL to set on the session's socket; empty: the system's default. */
    public static OptionalInt of(PeerSpec spec) {
        if (spec.internal()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(spec.ebgpMultiHop() ? ANY_DISTANCE : DIRECTLY_CONNECTED);
    }

    private static final int ETIMEDOUT = 110;
    private static final int EHOSTUNREACH = 113;

    /**
     * What to add to a failed connection's sentence when the TTL may be the cause: a router on the way answers a
     * segment whose TTL ran out with ICMP time exceeded, which fails the connection as "no route to host"; one that
     * stays silent lets it time out.
     */
    public static String hint(OptionalInt ttl, int errno) {
        return ttl.equals(OptionalInt.of(DIRECTLY_CONNECTED)) && (errno == EHOSTUNREACH || errno == ETIMEDOUT)
                ? " (this eBGP session leaves with TTL 1, as without ebgpMultiHop the router must be directly"
                        + " connected; set ebgpMultiHop: true on the BGPPeer if it is further away)"
                : "";
    }
}

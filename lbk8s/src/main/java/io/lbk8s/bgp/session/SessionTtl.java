package io.lbk8s.bgp.session;

import io.lbk8s.bgp.PeerSpec;
import java.util.OptionalInt;

/**
 * The TTL (IPv6: hop limit) a session's TCP segments leave with. Without {@code ebgpMultiHop} it is the system's
 * default, as MetalLB's native speaker leaves it, so that a BGPPeer that works there works unchanged (FRR, and MetalLB's
 * FRR mode, would send eBGP with TTL 1 and refuse a router that is not directly connected). With {@code ebgpMultiHop}
 * on an eBGP peer it is 255, FRR's {@code ebgp-multihop} without a count.
 */
public final class SessionTtl {
    private SessionTtl() {}

    public static final int ANY_DISTANCE = 255;

    /** The TTL to set on the session's socket; empty: the system's default. */
    public static OptionalInt of(PeerSpec spec) {
        return !spec.internal() && spec.ebgpMultiHop() ? OptionalInt.of(ANY_DISTANCE) : OptionalInt.empty();
    }
}

package io.lbk8s.bgp;

import io.lbk8s.address.IpPrefix;
import java.util.List;
import java.util.OptionalLong;

/**
 * A route this node advertises to one peer: a prefix (a Service's address, or the aggregate a BGPAdvertisement asks
 * for) and the attributes the BGPAdvertisement sets. The next hop is not here: it is the node's own address on the
 * session that carries the route.
 *
 * @param localPref LOCAL_PREF, sent to internal peers only (RFC 4271 5.1.5); empty means not set, sent as
 *                  {@link #DEFAULT_LOCAL_PREF}
 */
public record Route(IpPrefix prefix, OptionalLong localPref, List<Community> communities) {
    /** What an internal peer gets when no BGPAdvertisement sets localPref: FRR's default, and most routers'. */
    public static final long DEFAULT_LOCAL_PREF = 100;

    /** The LOCAL_PREF an internal peer gets for {@code localPref} (as a BGPAdvertisement gives it, or not). */
    public static long sentLocalPref(OptionalLong localPref) {
        return localPref.orElse(DEFAULT_LOCAL_PREF);
    }

    public Route {
        communities = List.copyOf(communities);
    }

    public static Route of(IpPrefix prefix) {
        return new Route(prefix, OptionalLong.empty(), List.of());
    }
}

package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The path attributes of one route on one session (RFC 4271 5.1, RFC 4760, RFC 2545). */
final class RouteAttributes {
    private RouteAttributes() {}

    /**
     * The attributes in type-code order; for IPv6 an MP_REACH_NLRI without prefixes, which {@link UpdatePacker} fills.
     * Empty when the session has no next hop for the route's family.
     */
    static Optional<List<PathAttribute>> of(Route route, Family family, SessionContext session) {
        Optional<IpAddress> nextHop = session.nextHop(family);
        if (nextHop.isEmpty()) {
            return Optional.empty();
        }
        List<PathAttribute> attributes = new ArrayList<>();
        attributes.add(PathAttribute.Origin.IGP);
        // an internal peer gets an empty AS_PATH; an external one our AS in front (RFC 4271 5.1.2)
        attributes.add(
                session.internal()
                        ? PathAttribute.AsPath.EMPTY
                        : new PathAttribute.AsPath(List.of(AsPathSegment.sequence(session.myAsn()))));
        if (family == Family.IPV4_UNICAST) {
            attributes.add(new PathAttribute.NextHop(nextHop.get()));
        }
        if (session.internal()) {
            attributes.add(new PathAttribute.LocalPref(Route.sentLocalPref(route.localPref())));
        }
        List<Community.Standard> standard = new ArrayList<>();
        List<Community.Large> large = new ArrayList<>();
        for (Community community : route.communities()) {
            switch (community) {
                case Community.Standard s -> standard.add(s);
                case Community.Large l -> large.add(l);
            }
        }
        if (!standard.isEmpty()) {
            attributes.add(new PathAttribute.Communities(standard));
        }
        if (family != Family.IPV4_UNICAST) {
            attributes.add(new PathAttribute.MpReach(family, nextHop.get(), session.ipv6LinkLocal(), List.of()));
        }
        if (!large.isEmpty()) {
            attributes.add(new PathAttribute.LargeCommunities(large));
        }
        return Optional.of(List.copyOf(attributes));
    }
}

package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an established session decides its UPDATEs by.
 *
 * @param localAddress        this node's end of the session: the next hop of routes of its family
 * @param otherFamilyNextHop  this node's address of the other family on the same interface, for dual-stack peers
 * @param ipv6LinkLocal       this node's link-local IPv6 address on that interface, sent after the global IPv6 next
 *                            hop (RFC 2545 3) when known
 * @param families            the families both sides announced in their OPENs
 */
public record SessionContext(
        long myAsn,
        boolean internal,
        boolean fourOctetAs,
        Set<Family> families,
        IpAddress localAddress,
        Optional<IpAddress> otherFamilyNextHop,
        Optional<IpAddress> ipv6LinkLocal,
        boolean dualStack) {
    public SessionContext {
        families = Set.copyOf(families);
    }

    /** This session as RFC 7606's AFI/SAFI disable leaves it: {@code family} no longer carried. */
    public SessionContext without(Family family) {
        Set<Family> left = families.stream().filter(f -> f != family).collect(Collectors.toSet());
        return new SessionContext(
                myAsn, internal, fourOctetAs, left, localAddress, otherFamilyNextHop, ipv6LinkLocal, dualStack);
    }

    /** The next hop for routes of {@code family}; empty when such routes do not go on this session. */
    public Optional<IpAddress> nextHop(Family family) {
        if (!families.contains(family)) {
            return Optional.empty();
        }
        if (family.ipFamily() == localAddress.family()) {
            return Optional.of(localAddress);
        }
        return dualStack ? otherFamilyNextHop.filter(a -> a.family() == family.ipFamily()) : Optional.empty();
    }
}

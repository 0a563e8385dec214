package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.time.Duration;
import java.util.Set;

/**
 * What two OPENs agreed on.
 *
 * @param holdTime    zero means neither side sends KEEPALIVEs nor times the other out (RFC 4271 4.4)
 * @param keepalive   zero with a zero hold time
 * @param fourOctetAs both sent the four-octet AS capability, so AS_PATH carries four-octet ASes
 * @param families    the families both announced (IPv4 unicast when neither sent multiprotocol capabilities)
 */
public record Negotiated(
        long peerAsn,
        IpAddress peerIdentifier,
        Duration holdTime,
        Duration keepalive,
        boolean fourOctetAs,
        Set<Family> families,
        boolean peerRouteRefresh,
        boolean peerGracefulRestart,
        boolean internal) {
    public Negotiated {
        families = Set.copyOf(families);
    }
}

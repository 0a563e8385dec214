package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bfd.BfdState;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * What a node can say of its session with one peer: shown in BGPSessionState objects, metrics, Events and
 * {@code lbk8s status}.
 *
 * @param lastError  the last reason the session went down, as one sentence (a NOTIFICATION received or sent, a
 *                   refused connection, a timeout)
 * @param advertised how many routes the peer has been sent and not withdrawn
 * @param bfd        empty when the peer has no BFD profile
 * @param disabled   the families RFC 7606's AFI/SAFI disable took off this session (the peer sent an MP_REACH_NLRI or
 *                   MP_UNREACH_NLRI of that family that could not be parsed), until it restarts; usually none
 */
public record SessionStatus(
        String peer,
        IpAddress address,
        SessionState state,
        Instant since,
        Optional<String> lastError,
        int advertised,
        Optional<BfdState> bfd,
        Set<Family> disabled) {
    public SessionStatus {
        disabled = Set.copyOf(disabled);
    }
}

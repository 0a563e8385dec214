package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.util.Optional;

/**
 * RFC 4271 6.8's connection collision: the peer connects to this node while the session already has a connection to
 * it. The connection initiated by the side with the higher BGP Identifier (unsigned 32-bit; when equal, the higher AS
 * number, RFC 6286 2.3) stays; the other is closed with a Cease / Connection Collision Resolution NOTIFICATION.
 */
public final class Collision {
    private Collision() {}

    /** RFC 4486's Cease subcode 7. */
    public static final Message.Notification RESOLUTION = Message.Notification.of(Message.Notification.CEASE, 7);

    public enum Verdict {
        /** Close the new connection; the session goes on. */
        KEEP_EXISTING,
        /** Close the session's connection and go on with the new one. */
        TAKE_INCOMING,
        /** The peer's BGP Identifier is not known yet: hold the new connection until the peer's OPEN arrives. */
        WAIT
    }

    /**
     * @param state          the session's state on its existing connection
     * @param existingIsOurs whether this node initiated the existing connection
     * @param ours           the BGP Identifier in the OPEN this node sent on it
     * @param peer           the BGP Identifier in the peer's OPEN on it: empty until it arrives
     */
    public static Verdict resolve(
            SessionState state,
            boolean existingIsOurs,
            IpAddress ours,
            long ourAs,
            Optional<IpAddress> peer,
            long peerAs) {
        return switch (state) {
            case IDLE, CONNECT, ACTIVE -> Verdict.TAKE_INCOMING; // no connection to collide with
            case ESTABLISHED -> Verdict.KEEP_EXISTING; // never replaced (RFC 4271 6.8)
            case OPEN_SENT, OPEN_CONFIRM -> {
                if (!existingIsOurs) {
                    // both were opened by the peer: it opens another only after giving up on the first
                    yield Verdict.TAKE_INCOMING;
                }
                if (peer.isEmpty()) {
                    yield Verdict.WAIT;
                }
                int byId = Long.compare(id(ours), id(peer.get()));
                boolean oursWins = byId != 0 ? byId > 0 : ourAs > peerAs;
                yield oursWins ? Verdict.KEEP_EXISTING : Verdict.TAKE_INCOMING;
            }
        };
    }

    private static long id(IpAddress identifier) {
        return identifier.low() & 0xFFFF_FFFFL;
    }
}

package io.lbk8s.bgp;

import java.util.Optional;

/** What can happen to a session (RFC 4271 8.1), timers included, as input to {@link SessionFsm}. */
public sealed interface SessionEvent {

    record Start() implements SessionEvent {}

    /** @param farewell the NOTIFICATION to send first; empty to just close TCP (graceful restart keeps routes) */
    record Stop(Optional<Message.Notification> farewell) implements SessionEvent {}

    record TimerExpired(Timer timer) implements SessionEvent {}

    record Connected() implements SessionEvent {}

    /**
     * The peer connected to this node (passive open, RFC 4271 8.2.1) and the shell made that the session's connection,
     * abandoning its own attempt under way, if any.
     */
    record Accepted() implements SessionEvent {}

    /** The peer's own connection won a {@link Collision} against the session's: close this one with a Cease. */
    record CollisionLost() implements SessionEvent {}

    /** @param reason one sentence: refused, timed out, closed by the peer */
    record ConnectionLost(String reason) implements SessionEvent {}

    /** The peer's OPEN, after {@link OpenNegotiation} accepted it. */
    record OpenAccepted(Negotiated negotiated) implements SessionEvent {}

    /** A received message that is malformed, unacceptable or unexpected: send the NOTIFICATION, drop the session. */
    record Refused(Message.Notification notification, String reason) implements SessionEvent {}

    /** A well-formed KEEPALIVE, UPDATE, NOTIFICATION or ROUTE-REFRESH (an OPEN comes as OpenAccepted or Refused). */
    record Received(Message message) implements SessionEvent {}

    /**
     * The peer sent an UPDATE whose MP_REACH_NLRI or MP_UNREACH_NLRI of {@code family} cannot be parsed, and the
     * session goes on without that family ({@link AfiSafiDisable}).
     *
     * @param reason what was wrong with the UPDATE, as {@link Decoded.Invalid#reason()} says it
     */
    record FamilyUnreadable(Family family, String reason) implements SessionEvent {}

    /** The speaker changed the routes this peer should have. */
    record RoutesChanged() implements SessionEvent {}

    enum Timer {
        CONNECT_RETRY,
        HOLD,
        KEEPALIVE
    }
}

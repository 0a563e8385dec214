package io.lbk8s.bgp;

/** What the shell does for a {@link SessionFsm} transition, in order. */
public sealed interface SessionAction {

    record Connect() implements SessionAction {}

    record Disconnect() implements SessionAction {}

    record Send(Message message) implements SessionAction {}

    record SendOpen() implements SessionAction {}

    /** Start or restart a timer with the length the shell knows for the current state. */
    record Arm(SessionEvent.Timer timer) implements SessionAction {}

    record Disarm(SessionEvent.Timer timer) implements SessionAction {}

    /** Send every route the peer should have, then End-of-RIB for each family (after OPEN or ROUTE-REFRESH). */
    record SendAllRoutes() implements SessionAction {}

    /** Send the UPDATEs for what changed since the last routes sent. */
    record SendChanges() implements SessionAction {}

    /**
     * RFC 7606's AFI/SAFI disable: from now on this session carries {@code family} as if it had not been negotiated;
     * a {@link SendChanges} after it withdraws the routes already sent in it.
     */
    record DisableFamily(Family family, String reason) implements SessionAction {}

    /** Take the negotiated parameters for this session (hold time, keepalive, families). */
    record Adopt(Negotiated negotiated) implements SessionAction {}

    /**
     * The session went down; {@link LastError#of} makes the sentence a user reads.
     *
     * @param whatThePeerDid what happened, said of the peer ("sent no KEEPALIVE ...")
     * @param received       the NOTIFICATION the peer sent, when that is what ended the session
     */
    record Failed(String whatThePeerDid, java.util.Optional<Message.Notification> received) implements SessionAction {}
}

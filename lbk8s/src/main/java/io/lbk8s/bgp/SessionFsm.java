package io.lbk8s.bgp;

import static io.lbk8s.bgp.SessionEvent.Timer.CONNECT_RETRY;
import static io.lbk8s.bgp.SessionEvent.Timer.HOLD;
import static io.lbk8s.bgp.SessionEvent.Timer.KEEPALIVE;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * RFC 4271 8's finite state machine: (state, event) to (new state, actions). The session connects out, and takes a
 * connection the peer opens ({@link SessionEvent.Accepted}) in IDLE, CONNECT or ACTIVE; one that arrives later is a
 * {@link Collision}, which the shell resolves. After an error the session waits in ACTIVE (connection failed) or IDLE
 * (the peer refused us) for the ConnectRetry timer, then connects again.
 */
public final class SessionFsm {
    private SessionFsm() {}

    public record Transition(SessionState state, List<SessionAction> actions) {
        public Transition {
            actions = List.copyOf(actions);
        }
    }

    public static Transition next(SessionState state, SessionEvent event) {
        return switch (event) {
            case SessionEvent.Start _ ->
                state == SessionState.IDLE || state == SessionState.ACTIVE ? connect() : stay(state);
            case SessionEvent.Stop stop -> {
                List<SessionAction> actions = new ArrayList<>();
                if (state == SessionState.OPEN_SENT
                        || state == SessionState.OPEN_CONFIRM
                        || state == SessionState.ESTABLISHED) {
                    stop.farewell().ifPresent(n -> actions.add(new SessionAction.Send(n)));
                }
                actions.addAll(List.of(
                        new SessionAction.Disconnect(),
                        new SessionAction.Disarm(CONNECT_RETRY),
                        new SessionAction.Disarm(HOLD),
                        new SessionAction.Disarm(KEEPALIVE)));
                yield new Transition(SessionState.IDLE, actions);
            }
            case SessionEvent.TimerExpired(var timer) -> timer(state, timer);
            case SessionEvent.Connected _ ->
                state == SessionState.CONNECT
                        ? new Transition(
                                SessionState.OPEN_SENT,
                                List.of(
                                        new SessionAction.Disarm(CONNECT_RETRY),
                                        new SessionAction.SendOpen(),
                                        new SessionAction.Arm(HOLD)))
                        : stay(state);
            case SessionEvent.Accepted _ ->
                switch (state) {
                    case IDLE, CONNECT, ACTIVE ->
                        new Transition(
                                SessionState.OPEN_SENT,
                                List.of(
                                        new SessionAction.Disarm(CONNECT_RETRY),
                                        new SessionAction.SendOpen(),
                                        new SessionAction.Arm(HOLD)));
                    default -> stay(state);
                };
            case SessionEvent.CollisionLost _ ->
                state == SessionState.OPEN_SENT || state == SessionState.OPEN_CONFIRM
                        ? new Transition(
                                SessionState.ACTIVE,
                                List.of(
                                        new SessionAction.Send(Collision.RESOLUTION),
                                        new SessionAction.Disconnect(),
                                        new SessionAction.Disarm(HOLD),
                                        new SessionAction.Disarm(KEEPALIVE)))
                        : stay(state);
            case SessionEvent.ConnectionLost(var reason) ->
                state == SessionState.IDLE || state == SessionState.ACTIVE
                        ? stay(state)
                        : down(SessionState.ACTIVE, null, reason);
            case SessionEvent.OpenAccepted(var negotiated) ->
                state == SessionState.OPEN_SENT
                        ? new Transition(
                                SessionState.OPEN_CONFIRM,
                                List.of(
                                        new SessionAction.Adopt(negotiated),
                                        new SessionAction.Send(new Message.Keepalive()),
                                        new SessionAction.Arm(KEEPALIVE),
                                        new SessionAction.Arm(HOLD)))
                        : unexpected(state, "an OPEN");
            case SessionEvent.Refused(var notification, var reason) ->
                isConnected(state) ? down(SessionState.IDLE, notification, reason) : stay(state);
            case SessionEvent.Received(var message) -> received(state, message);
            case SessionEvent.FamilyUnreadable(var family, var reason) ->
                switch (state) {
                    case ESTABLISHED ->
                        new Transition(
                                state,
                                List.of(
                                        new SessionAction.Arm(HOLD),
                                        new SessionAction.DisableFamily(family, reason),
                                        new SessionAction.SendChanges()));
                    default -> unexpected(state, "an UPDATE");
                };
            case SessionEvent.RoutesChanged _ ->
                state == SessionState.ESTABLISHED
                        ? new Transition(state, List.of(new SessionAction.SendChanges()))
                        : stay(state);
        };
    }

    private static Transition timer(SessionState state, SessionEvent.Timer timer) {
        return switch (timer) {
            case CONNECT_RETRY ->
                switch (state) {
                    case IDLE, ACTIVE -> connect();
                    // the connection attempt outlived its own time-out: say so, as that time-out would have
                    case CONNECT ->
                        new Transition(
                                SessionState.CONNECT,
                                List.of(
                                        new SessionAction.Disconnect(),
                                        new SessionAction.Connect(),
                                        new SessionAction.Arm(CONNECT_RETRY),
                                        new SessionAction.Failed(
                                                "accepted no connection within the BGPPeer's connectTime",
                                                Optional.empty())));
                    default -> stay(state);
                };
            case HOLD ->
                isConnected(state)
                        ? down(
                                SessionState.IDLE,
                                Message.Notification.of(4, 0),
                                "sent no KEEPALIVE or UPDATE within the hold time")
                        : stay(state);
            case KEEPALIVE ->
                state == SessionState.OPEN_CONFIRM || state == SessionState.ESTABLISHED
                        ? new Transition(
                                state,
                                List.of(
                                        new SessionAction.Send(new Message.Keepalive()),
                                        new SessionAction.Arm(KEEPALIVE)))
                        : stay(state);
        };
    }

    private static Transition received(SessionState state, Message message) {
        if (message instanceof Message.Notification n) {
            return isConnected(state) ? down(SessionState.IDLE, null, "sent a NOTIFICATION", n) : stay(state);
        }
        return switch (state) {
            case OPEN_CONFIRM ->
                message instanceof Message.Keepalive
                        ? new Transition(
                                SessionState.ESTABLISHED,
                                List.of(new SessionAction.Arm(HOLD), new SessionAction.SendAllRoutes()))
                        : unexpected(state, name(message));
            case ESTABLISHED ->
                switch (message) {
                    case Message.RouteRefresh _ ->
                        new Transition(state, List.of(new SessionAction.Arm(HOLD), new SessionAction.SendAllRoutes()));
                    case Message.Open _ -> unexpected(state, "an OPEN");
                    default -> new Transition(state, List.of(new SessionAction.Arm(HOLD)));
                };
            case OPEN_SENT -> unexpected(state, name(message));
            default -> stay(state);
        };
    }

    private static String name(Message message) {
        return switch (message) {
            case Message.Open _ -> "an OPEN";
            case Message.Update _ -> "an UPDATE";
            case Message.Keepalive _ -> "a KEEPALIVE";
            case Message.Notification _ -> "a NOTIFICATION";
            case Message.RouteRefresh _ -> "a ROUTE-REFRESH";
        };
    }

    /** RFC 6608: Finite State Machine Error, subcode by the state that did not expect the message. */
    private static Transition unexpected(SessionState state, String what) {
        int subcode = switch (state) {
            case OPEN_SENT -> 1;
            case OPEN_CONFIRM -> 2;
            case ESTABLISHED -> 3;
            default -> 0;
        };
        if (subcode == 0) {
            return stay(state);
        }
        return down(
                SessionState.IDLE,
                Message.Notification.of(5, subcode),
                "sent " + what + " in state " + state + ", where BGP does not allow it");
    }

    private static boolean isConnected(SessionState state) {
        return state == SessionState.OPEN_SENT
                || state == SessionState.OPEN_CONFIRM
                || state == SessionState.ESTABLISHED;
    }

    private static Transition connect() {
        return new Transition(
                SessionState.CONNECT, List.of(new SessionAction.Connect(), new SessionAction.Arm(CONNECT_RETRY)));
    }

    private static Transition stay(SessionState state) {
        return new Transition(state, List.of());
    }

    private static Transition down(SessionState to, Message.Notification send, String reason) {
        return down(to, send, reason, null);
    }

    /** Ends the connection: optionally a NOTIFICATION first, then a retry after ConnectRetry. */
    private static Transition down(
            SessionState to, Message.Notification send, String reason, Message.Notification receivedNotification) {
        List<SessionAction> actions = new ArrayList<>();
        if (send != null) {
            actions.add(new SessionAction.Send(send));
        }
        actions.add(new SessionAction.Disconnect());
        actions.add(new SessionAction.Disarm(HOLD));
        actions.add(new SessionAction.Disarm(KEEPALIVE));
        actions.add(new SessionAction.Arm(CONNECT_RETRY));
        String sentence = send != null ? reason + "; we sent NOTIFICATION " + send.describe() : reason;
        actions.add(new SessionAction.Failed(sentence, Optional.ofNullable(receivedNotification)));
        return new Transition(to, actions);
    }
}

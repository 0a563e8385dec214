package io.lbk8s.bgp;

import static io.lbk8s.bgp.SessionEvent.Timer.CONNECT_RETRY;
import static io.lbk8s.bgp.SessionEvent.Timer.HOLD;
import static io.lbk8s.bgp.SessionEvent.Timer.KEEPALIVE;
import static io.lbk8s.bgp.SessionState.ACTIVE;
import static io.lbk8s.bgp.SessionState.CONNECT;
import static io.lbk8s.bgp.SessionState.ESTABLISHED;
import static io.lbk8s.bgp.SessionState.IDLE;
import static io.lbk8s.bgp.SessionState.OPEN_CONFIRM;
import static io.lbk8s.bgp.SessionState.OPEN_SENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SessionFsmTest {
    private static final Negotiated NEGOTIATED = new Negotiated(
            64513,
            IpAddress.parse("10.0.0.1").orElseThrow(),
            Duration.ofSeconds(90),
            Duration.ofSeconds(30),
            true,
            Set.of(Family.IPV4_UNICAST),
            true,
            false,
            false);
    private static final Message.Notification SHUTDOWN = Message.Notification.administrativeShutdown("bye");

    private static SessionAction send(Message m) {
        return new SessionAction.Send(m);
    }

    private static SessionAction arm(SessionEvent.Timer t) {
        return new SessionAction.Arm(t);
    }

    private static SessionAction disarm(SessionEvent.Timer t) {
        return new SessionAction.Disarm(t);
    }

    private static final SessionAction DISCONNECT = new SessionAction.Disconnect();

    /** state, event, new state, actions (Failed actions are checked by their sentences below). */
    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of(
                        IDLE,
                        new SessionEvent.Start(),
                        CONNECT,
                        List.of(new SessionAction.Connect(), arm(CONNECT_RETRY))),
                Arguments.of(
                        CONNECT,
                        new SessionEvent.Connected(),
                        OPEN_SENT,
                        List.of(disarm(CONNECT_RETRY), new SessionAction.SendOpen(), arm(HOLD))),
                Arguments.of(
                        CONNECT,
                        new SessionEvent.ConnectionLost("refused"),
                        ACTIVE,
                        List.of(DISCONNECT, disarm(HOLD), disarm(KEEPALIVE), arm(CONNECT_RETRY))),
                Arguments.of(
                        ACTIVE,
                        new SessionEvent.TimerExpired(CONNECT_RETRY),
                        CONNECT,
                        List.of(new SessionAction.Connect(), arm(CONNECT_RETRY))),
                Arguments.of(
                        CONNECT,
                        new SessionEvent.TimerExpired(CONNECT_RETRY),
                        CONNECT,
                        List.of(DISCONNECT, new SessionAction.Connect(), arm(CONNECT_RETRY))),
                Arguments.of(
                        OPEN_SENT,
                        new SessionEvent.OpenAccepted(NEGOTIATED),
                        OPEN_CONFIRM,
                        List.of(
                                new SessionAction.Adopt(NEGOTIATED),
                                send(new Message.Keepalive()),
                                arm(KEEPALIVE),
                                arm(HOLD))),
                Arguments.of(
                        OPEN_CONFIRM,
                        new SessionEvent.Received(new Message.Keepalive()),
                        ESTABLISHED,
                        List.of(arm(HOLD), new SessionAction.SendAllRoutes())),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.Received(new Message.Keepalive()),
                        ESTABLISHED,
                        List.of(arm(HOLD))),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.Received(new Message.RouteRefresh(1, 1)),
                        ESTABLISHED,
                        List.of(arm(HOLD), new SessionAction.SendAllRoutes())),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.TimerExpired(KEEPALIVE),
                        ESTABLISHED,
                        List.of(send(new Message.Keepalive()), arm(KEEPALIVE))),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.RoutesChanged(),
                        ESTABLISHED,
                        List.of(new SessionAction.SendChanges())),
                Arguments.of(OPEN_SENT, new SessionEvent.RoutesChanged(), OPEN_SENT, List.of()),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.FamilyUnreadable(Family.IPV6_UNICAST, "an UPDATE"),
                        ESTABLISHED,
                        List.of(
                                arm(HOLD),
                                new SessionAction.DisableFamily(Family.IPV6_UNICAST, "an UPDATE"),
                                new SessionAction.SendChanges())),
                Arguments.of(
                        OPEN_CONFIRM,
                        new SessionEvent.FamilyUnreadable(Family.IPV6_UNICAST, "an UPDATE"),
                        IDLE,
                        List.of(
                                send(Message.Notification.of(5, 2)),
                                DISCONNECT,
                                disarm(HOLD),
                                disarm(KEEPALIVE),
                                arm(CONNECT_RETRY))),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.Stop(Optional.of(SHUTDOWN)),
                        IDLE,
                        List.of(send(SHUTDOWN), DISCONNECT, disarm(CONNECT_RETRY), disarm(HOLD), disarm(KEEPALIVE))),
                Arguments.of(
                        ESTABLISHED,
                        new SessionEvent.Stop(Optional.empty()),
                        IDLE,
                        List.of(DISCONNECT, disarm(CONNECT_RETRY), disarm(HOLD), disarm(KEEPALIVE))),
                Arguments.of(
                        ACTIVE,
                        new SessionEvent.Stop(Optional.of(SHUTDOWN)),
                        IDLE,
                        List.of(DISCONNECT, disarm(CONNECT_RETRY), disarm(HOLD), disarm(KEEPALIVE))),
                // the peer connected to us: waiting for the retry, or with our own attempt under way
                Arguments.of(
                        ACTIVE,
                        new SessionEvent.Accepted(),
                        OPEN_SENT,
                        List.of(disarm(CONNECT_RETRY), new SessionAction.SendOpen(), arm(HOLD))),
                Arguments.of(
                        CONNECT,
                        new SessionEvent.Accepted(),
                        OPEN_SENT,
                        List.of(disarm(CONNECT_RETRY), new SessionAction.SendOpen(), arm(HOLD))),
                Arguments.of(
                        IDLE,
                        new SessionEvent.Accepted(),
                        OPEN_SENT,
                        List.of(disarm(CONNECT_RETRY), new SessionAction.SendOpen(), arm(HOLD))),
                Arguments.of(ESTABLISHED, new SessionEvent.Accepted(), ESTABLISHED, List.of()),
                // our connection lost a collision: a Cease (Connection Collision Resolution) on it, no retry timer
                Arguments.of(
                        OPEN_CONFIRM,
                        new SessionEvent.CollisionLost(),
                        ACTIVE,
                        List.of(send(Message.Notification.of(6, 7)), DISCONNECT, disarm(HOLD), disarm(KEEPALIVE))),
                Arguments.of(ESTABLISHED, new SessionEvent.CollisionLost(), ESTABLISHED, List.of()));
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}")
    @MethodSource("table")
    void transitions(SessionState from, SessionEvent event, SessionState to, List<SessionAction> actions) {
        SessionFsm.Transition transition = SessionFsm.next(from, event);

        assertThat(transition.state()).isEqualTo(to);
        assertThat(transition.actions())
                .filteredOn(a -> !(a instanceof SessionAction.Failed))
                .containsExactlyElementsOf(actions);
    }

    @Test
    void theHoldTimerEndsTheSessionWithHoldTimerExpired() {
        SessionFsm.Transition transition = SessionFsm.next(ESTABLISHED, new SessionEvent.TimerExpired(HOLD));

        assertThat(transition.state()).isEqualTo(IDLE);
        assertThat(transition.actions()).startsWith(send(Message.Notification.of(4, 0)), DISCONNECT);
        assertThat(sentence(transition))
                .isEqualTo("peer 10.0.0.1 sent no KEEPALIVE or UPDATE within the hold time; we sent NOTIFICATION Hold"
                        + " Timer Expired");
    }

    @Test
    void anUpdateBeforeTheSessionIsUpIsAStateMachineError() {
        SessionFsm.Transition transition =
                SessionFsm.next(OPEN_CONFIRM, new SessionEvent.Received(Message.Update.endOfRib(Family.IPV4_UNICAST)));

        assertThat(transition.state()).isEqualTo(IDLE);
        assertThat(transition.actions()).first().isEqualTo(send(Message.Notification.of(5, 2)));
        assertThat(sentence(transition))
                .isEqualTo("peer 10.0.0.1 sent an UPDATE in state OPEN_CONFIRM, where BGP does not allow it; we sent"
                        + " NOTIFICATION Finite State Machine Error / Unexpected Message in OpenConfirm State");
    }

    @Test
    void aNotificationReceivedIsTheLastErrorWithItsCommunication() {
        SessionFsm.Transition transition = SessionFsm.next(
                ESTABLISHED,
                new SessionEvent.Received(Message.Notification.administrativeShutdown("maintenance window 42")));

        assertThat(transition.state()).isEqualTo(IDLE);
        assertThat(transition.actions()).doesNotHaveAnyElementsOfTypes(SessionAction.Send.class);
        assertThat(sentence(transition))
                .isEqualTo(
                        "peer 10.0.0.1 sent NOTIFICATION Cease / Administrative Shutdown: \"maintenance window 42\"");
    }

    @Test
    void aRefusedOpenIsAnsweredAndExplained() {
        SessionFsm.Transition transition = SessionFsm.next(
                OPEN_SENT,
                new SessionEvent.Refused(
                        Message.Notification.of(2, 2), "says it is AS 64999, the BGPPeer expects AS 64513"));

        assertThat(transition.state()).isEqualTo(IDLE);
        assertThat(sentence(transition))
                .isEqualTo("peer 10.0.0.1 says it is AS 64999, the BGPPeer expects AS 64513; we sent NOTIFICATION"
                        + " OPEN Message Error / Bad Peer AS");
    }

    @Test
    void aConnectionAttemptThatOutlivesTheConnectTimeIsTheLastError() {
        SessionFsm.Transition transition = SessionFsm.next(CONNECT, new SessionEvent.TimerExpired(CONNECT_RETRY));

        assertThat(transition.state()).isEqualTo(CONNECT);
        assertThat(sentence(transition))
                .isEqualTo("peer 10.0.0.1 accepted no connection within the BGPPeer's connectTime");
    }

    private static String sentence(SessionFsm.Transition transition) {
        SessionAction.Failed failed = transition.actions().stream()
                .filter(SessionAction.Failed.class::isInstance)
                .map(SessionAction.Failed.class::cast)
                .findFirst()
                .orElseThrow();
        return LastError.of(IpAddress.parse("10.0.0.1").orElseThrow(), 64512, failed);
    }
}

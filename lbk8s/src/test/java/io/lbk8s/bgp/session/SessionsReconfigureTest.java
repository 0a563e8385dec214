package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.net.link.TcpSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A BGPPeer edited while its session is up, as a router on loopback (our own codecs) and the session's status (which
 * the node's BGPSessionDown Event shows) see it: a restart says why, and an edit the session does not use restarts
 * nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionsReconfigureTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int WAIT_MILLIS = 10_000;

    @Test
    void anEditedBgpPeerRestartsItsSessionAndTheStatusSaysWhy() throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {});
            try {
                sessions.configure(List.of(spec(router.getLocalPort(), Duration.ofSeconds(90))));
                try (Socket first = router.accept()) {
                    SessionsGracefulRestartTest.restartState(first);
                    awaitEstablished(sessions);

                    sessions.configure(List.of(spec(router.getLocalPort(), Duration.ofSeconds(30))));

                    // what the speaker reads when told of the change, and puts in the node's BGPSessionDown Event
                    assertThat(sessions.statuses())
                            .singleElement()
                            .satisfies(s -> assertThat(s.state()).isNotEqualTo(SessionState.ESTABLISHED))
                            .extracting(SessionStatus::lastError)
                            .isEqualTo(Optional.of("BGPPeer \"router\" changed (holdTime): session restarted"));
                    assertThat(untilNotification(first).describe())
                            .as("what the router is told")
                            .isEqualTo("Cease / Other Configuration Change");
                }
                try (Socket again = router.accept()) {
                    SessionsGracefulRestartTest.restartState(again);
                    awaitEstablished(sessions);
                }
            } finally {
                sessions.close();
            }
        }
    }

    @Test
    void anotherConnectTimeLeavesAnEstablishedSessionAlone() throws Exception {
        List<SessionStatus> seen = new CopyOnWriteArrayList<>();
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), seen::add);
            try {
                sessions.configure(List.of(spec(router.getLocalPort(), Duration.ofSeconds(90))));
                try (Socket first = router.accept()) {
                    SessionsGracefulRestartTest.restartState(first);
                    awaitEstablished(sessions);
                    seen.clear();

                    sessions.configure(List.of(PeerSpecs.onLoopback(
                            "router", router.getLocalPort(), Duration.ofSeconds(90), Duration.ofSeconds(5))));

                    router.setSoTimeout(1_500);
                    assertThatThrownBy(router::accept)
                            .as("a second connection")
                            .isInstanceOf(SocketTimeoutException.class);
                    first.setSoTimeout(500);
                    assertThatThrownBy(() -> untilNotification(first))
                            .as("a NOTIFICATION on the first")
                            .isInstanceOf(SocketTimeoutException.class);
                    assertThat(seen).noneMatch(s -> s.state() != SessionState.ESTABLISHED);
                    assertThat(sessions.statuses())
                            .singleElement()
                            .extracting(SessionStatus::state)
                            .isEqualTo(SessionState.ESTABLISHED);
                }
            } finally {
                sessions.close();
            }
        }
    }

    @Test
    void anotherConnectTimeRestartsASessionStillConnecting() throws Exception {
        // a peer that never answers our SYNs (it demands a TCP MD5 key we lack): an attempt waits its whole connectTime
        try (TcpSocket silent = TcpSocket.listen(new InetSocketAddress(LOOPBACK, 0), Map.of(LOOPBACK, "s3cret"))) {
            int port = silent.local().getPort();
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {});
            try {
                sessions.configure(
                        List.of(PeerSpecs.onLoopback("router", port, Duration.ofSeconds(90), Duration.ofMinutes(2))));
                awaitState(sessions, SessionState.CONNECT);

                sessions.configure(
                        List.of(PeerSpecs.onLoopback("router", port, Duration.ofSeconds(90), Duration.ofSeconds(3))));

                assertThat(sessions.statuses())
                        .singleElement()
                        .extracting(SessionStatus::lastError)
                        .isEqualTo(Optional.of("BGPPeer \"router\" changed (connectTime): session restarted"));
                // the attempt under way would otherwise wait out the old 2 minutes before saying anything
                awaitLastError(sessions, e -> e.contains("within 3000 ms"));
            } finally {
                sessions.close();
            }
        }
    }

    private static void awaitState(Sessions sessions, SessionState state) throws InterruptedException {
        for (int i = 0; i < 100 && !sessions.statuses().stream().allMatch(s -> s.state() == state); i++) {
            Thread.sleep(50);
        }
        assertThat(sessions.statuses())
                .singleElement()
                .extracting(SessionStatus::state)
                .isEqualTo(state);
    }

    private static void awaitLastError(Sessions sessions, Predicate<String> matches) throws InterruptedException {
        for (int i = 0; i < 100 && !lastErrorMatches(sessions, matches); i++) {
            Thread.sleep(50);
        }
        assertThat(sessions.statuses())
                .singleElement()
                .satisfies(s -> assertThat(s.lastError())
                        .hasValueSatisfying(e -> assertThat(matches).accepts(e)));
    }

    private static boolean lastErrorMatches(Sessions sessions, Predicate<String> matches) {
        return sessions.statuses().stream()
                .allMatch(s -> s.lastError().filter(matches).isPresent());
    }

    private static PeerSpec spec(int port, Duration holdTime) {
        return PeerSpecs.onLoopback("router", port, holdTime, Duration.ofSeconds(2));
    }

    private static void awaitEstablished(Sessions sessions) throws InterruptedException {
        for (int i = 0; i < 100 && !established(sessions); i++) {
            Thread.sleep(50);
        }
        assertThat(established(sessions)).as("the session Established").isTrue();
    }

    private static boolean established(Sessions sessions) {
        return sessions.statuses().stream().allMatch(s -> s.state() == SessionState.ESTABLISHED);
    }

    /** Reads what we send (KEEPALIVEs, UPDATEs) up to a NOTIFICATION. */
    private static Message.Notification untilNotification(Socket connection) throws Exception {
        for (int i = 0; i < 50; i++) {
            if (SessionsGracefulRestartTest.read(connection.getInputStream()) instanceof Message.Notification n) {
                return n;
            }
        }
        throw new AssertionError("no NOTIFICATION in 50 messages");
    }
}

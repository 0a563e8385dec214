package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.HandBuiltUpdates;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageEncoder;
import io.lbk8s.bgp.PathAttribute;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * RFC 7606's AFI/SAFI disable as a router on loopback (our own codecs) sees it: after it sends an UPDATE whose
 * MP_REACH_NLRI cannot be parsed, a session that carries IPv4 and IPv6 goes on without that family, and says so in its
 * status; one that carries that family alone still ends with a NOTIFICATION. On loopback the session has no IPv6 next
 * hop (NodeAddresses skips loopback addresses), so only its IPv4 routes are sent, and IPv6 shows in End-of-RIB.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionsAfiSafiDisableTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int WAIT_MILLIS = 10_000;
    /** IPv6 unicast with a next hop of 3 octets: the NLRI after it cannot be found (RFC 7606 7.11). */
    private static final String UNREADABLE_IPV6 = "40010100 400200 800e0a 00020103 010203 00 40fd00";
    /** IPv4 unicast in MP_REACH_NLRI, with a prefix of /33. */
    private static final String UNREADABLE_IPV4 = "40010100 400200 800e0a 000101 04 0a000001 00 21";

    @Test
    void anUnreadableIpv6UpdateDisablesIpv6AndIpv4RoutesStillFlow() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(PeerSession.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            Sessions sessions = started(router, "198.51.100.10/32", "2001:db8::10/128");
            try (Socket connection = router.accept()) {
                SessionsGracefulRestartTest.answerOpen(connection, Family.IPV4_UNICAST, Family.IPV6_UNICAST);
                assertThat(untilEndOfRib(connection, Family.IPV6_UNICAST))
                        .as("the full table")
                        .containsExactly("announce 198.51.100.10/32", "EoR IPv4 unicast", "EoR IPv6 unicast");

                connection.getOutputStream().write(HandBuiltUpdates.update(UNREADABLE_IPV6, null));
                SessionStatus status = awaitStatus(sessions, s -> !s.disabled().isEmpty());
                assertThat(status.state()).isEqualTo(SessionState.ESTABLISHED);
                assertThat(status.disabled()).containsExactly(Family.IPV6_UNICAST);
                assertThat(status.lastError()).isEmpty();
                // the peer's later UPDATEs of that family are ignored, however broken, and said nothing of
                connection.getOutputStream().write(HandBuiltUpdates.update(UNREADABLE_IPV6, null));

                sessions.advertise("router", routes("198.51.100.10/32", "198.51.100.11/32", "2001:db8::11/128"));
                assertThat(untilAnnounced(connection, "198.51.100.11/32"))
                        .as("a new IPv4 route")
                        .containsExactly("announce 198.51.100.11/32");

                // as if IPv6 had not been negotiated: no IPv6 End-of-RIB after the IPv4 one, before the next route
                connection.getOutputStream().write(MessageEncoder.encode(new Message.RouteRefresh(1, 1), true));
                List<String> seen = new ArrayList<>(untilEndOfRib(connection, Family.IPV4_UNICAST));
                sessions.advertise(
                        "router",
                        routes("198.51.100.10/32", "198.51.100.11/32", "198.51.100.12/32", "2001:db8::11/128"));
                seen.addAll(untilAnnounced(connection, "198.51.100.12/32"));
                assertThat(seen)
                        .as("the table again, then the next route")
                        .containsExactly(
                                "announce 198.51.100.10/32",
                                "announce 198.51.100.11/32",
                                "EoR IPv4 unicast",
                                "announce 198.51.100.12/32");
                assertThat(sessions.statuses())
                        .singleElement()
                        .satisfies(s -> assertThat(s.state()).isEqualTo(SessionState.ESTABLISHED))
                        .satisfies(s -> assertThat(s.disabled()).containsExactly(Family.IPV6_UNICAST));
            } finally {
                sessions.close();
            }
        } finally {
            logger.detachAppender(log);
        }
        assertThat(log.list)
                .filteredOn(e -> e.getLevel() == Level.WARN)
                .extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("BGP peer router (127.0.0.1) sent an UPDATE whose IPv6 unicast MP_REACH_NLRI cannot be"
                        + " parsed: a next hop of 3 octets; the session goes on without IPv6 unicast (RFC 7606's"
                        + " AFI/SAFI disable): this node withdraws its IPv6 unicast routes from the peer and sends it"
                        + " none until the session restarts, and IPv4 unicast goes on");
    }

    @Test
    void anUnreadableIpv4UpdateWithdrawsTheIpv4RoutesUntilTheSessionRestarts() throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            Sessions sessions = started(router, "198.51.100.10/32");
            try {
                try (Socket connection = router.accept()) {
                    SessionsGracefulRestartTest.answerOpen(connection, Family.IPV4_UNICAST, Family.IPV6_UNICAST);
                    untilEndOfRib(connection, Family.IPV6_UNICAST);

                    connection.getOutputStream().write(HandBuiltUpdates.update(UNREADABLE_IPV4, null));
                    assertThat(untilWithdrawn(connection)).containsExactly("withdraw 198.51.100.10/32");
                    SessionStatus status =
                            awaitStatus(sessions, s -> !s.disabled().isEmpty());
                    assertThat(status.state()).isEqualTo(SessionState.ESTABLISHED);
                    assertThat(status.disabled()).containsExactly(Family.IPV4_UNICAST);
                    assertThat(status.advertised()).isZero();
                }
                // the router closed the connection: the next session negotiates IPv4 again
                try (Socket again = router.accept()) {
                    SessionsGracefulRestartTest.answerOpen(again, Family.IPV4_UNICAST, Family.IPV6_UNICAST);
                    assertThat(untilEndOfRib(again, Family.IPV6_UNICAST))
                            .containsExactly("announce 198.51.100.10/32", "EoR IPv4 unicast", "EoR IPv6 unicast");
                    SessionStatus status = awaitStatus(sessions, s -> s.state() == SessionState.ESTABLISHED);
                    assertThat(status.disabled()).isEmpty();
                }
            } finally {
                sessions.close();
            }
        }
    }

    @Test
    void aSessionOfThatFamilyAloneStillEndsWithANotification() throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            Sessions sessions = started(router, "198.51.100.10/32");
            try (Socket connection = router.accept()) {
                SessionsGracefulRestartTest.answerOpen(connection, Family.IPV4_UNICAST);
                untilEndOfRib(connection, Family.IPV4_UNICAST);

                connection.getOutputStream().write(HandBuiltUpdates.update(UNREADABLE_IPV4, null));
                assertThat(untilNotification(connection)).isEqualTo("UPDATE Message Error / Optional Attribute Error");
                SessionStatus status = awaitStatus(sessions, s -> s.lastError().isPresent());
                assertThat(status.lastError())
                        .hasValue(
                                "peer 127.0.0.1 sent an UPDATE whose IPv4 unicast MP_REACH_NLRI cannot be parsed: a prefix of length 33"
                                        + " that does not fit; we sent NOTIFICATION"
                                        + " UPDATE Message Error / Optional Attribute Error");
                assertThat(status.disabled()).isEmpty();
            } finally {
                sessions.close();
            }
        }
    }

    private static Sessions started(ServerSocket router, String... prefixes) {
        Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {});
        sessions.configure(List.of(
                PeerSpecs.onLoopback("router", router.getLocalPort(), Duration.ofSeconds(90), Duration.ofSeconds(2))));
        sessions.advertise("router", routes(prefixes));
        return sessions;
    }

    private static Set<Route> routes(String... prefixes) {
        return Set.copyOf(Arrays.stream(prefixes)
                .map(p -> Route.of(IpPrefix.parse(p).orElseThrow()))
                .toList());
    }

    private static List<String> untilEndOfRib(Socket connection, Family last) throws IOException {
        return until(connection, seen -> seen.contains("EoR " + last.describe()));
    }

    private static List<String> untilAnnounced(Socket connection, String prefix) throws IOException {
        return until(connection, seen -> seen.contains("announce " + prefix));
    }

    private static List<String> untilWithdrawn(Socket connection) throws IOException {
        return until(connection, seen -> seen.stream().anyMatch(s -> s.startsWith("withdraw")));
    }

    private static String untilNotification(Socket connection) throws IOException {
        List<String> seen = until(connection, s -> s.getLast().startsWith("NOTIFICATION"));
        return seen.getLast().substring("NOTIFICATION ".length());
    }

    /** What we send, UPDATE by UPDATE ("announce", "withdraw", "EoR") and NOTIFICATIONs, until {@code done}. */
    private static List<String> until(Socket connection, Predicate<List<String>> done) throws IOException {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            switch (SessionsGracefulRestartTest.read(connection.getInputStream())) {
                case Message.Update update -> seen.addAll(said(update));
                case Message.Notification n -> seen.add("NOTIFICATION " + n.describe());
                default -> {
                    continue; // KEEPALIVEs
                }
            }
            if (!seen.isEmpty() && done.test(seen)) {
                return seen;
            }
        }
        throw new AssertionError("not done after 50 messages: " + seen);
    }

    private static List<String> said(Message.Update update) {
        Optional<Family> endOfRib = update.endOfRibFamily();
        if (endOfRib.isPresent()) {
            return List.of("EoR " + endOfRib.get().describe());
        }
        List<String> said = new ArrayList<>();
        update.withdrawn().forEach(p -> said.add("withdraw " + p));
        update.nlri().forEach(p -> said.add("announce " + p));
        for (PathAttribute attribute : update.attributes()) {
            switch (attribute) {
                case PathAttribute.MpReach reach -> reach.nlri().forEach(p -> said.add("announce " + p));
                case PathAttribute.MpUnreach unreach -> unreach.withdrawn().forEach(p -> said.add("withdraw " + p));
                default -> {}
            }
        }
        return said;
    }

    private static SessionStatus awaitStatus(Sessions sessions, Predicate<SessionStatus> matches)
            throws InterruptedException {
        for (int i = 0; i < 100 && sessions.statuses().stream().noneMatch(matches); i++) {
            Thread.sleep(50);
        }
        return sessions.statuses().stream()
                .filter(matches)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no such status: " + sessions.statuses()));
    }
}

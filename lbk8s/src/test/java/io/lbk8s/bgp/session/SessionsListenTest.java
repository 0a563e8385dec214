package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Capability;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageEncoder;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The speaker's listening socket, against a router on loopback (our own codecs) that connects to it as FRR, BIRD and
 * GoBGP do: its connection becomes the session, and when both sides connected, RFC 4271 6.8 keeps the connection
 * opened by the side with the higher BGP Identifier (ours is 10.0.0.5).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionsListenTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int WAIT_MILLIS = 10_000;
    private static final IpPrefix SERVICE = IpPrefix.parse("198.51.100.10/32").orElseThrow();
    private static final Duration SHORT = Duration.ofMillis(700);
    private static final IpPrefix ANOTHER = IpPrefix.parse("198.51.100.11/32").orElseThrow();

    @Test
    void aRouterThatConnectsToTheNodeGetsAnOpenAndTheRoutes() throws Exception {
        // nothing listens at the BGPPeer's port: the session's own attempts are refused, and it waits to retry
        PeerSpec spec = spec(deadPort());
        try (Sessions sessions = listening(spec)) {
            long start = System.nanoTime();
            try (Socket router = new Socket(LOOPBACK, sessions.listeningPort().orElseThrow())) {
                Message.Open ours = exchangeOpens(router, "10.0.0.1");
                assertThat(ours.bgpIdentifier())
                        .isEqualTo(IpAddress.parse("10.0.0.5").orElseThrow());
                assertThat(untilEndOfRib(router)).containsExactly("KEEPALIVE", "198.51.100.10/32", "EoR");
                System.out.printf(
                        "connected to the listener -> OPEN, the route and End-of-RIB: %d ms%n",
                        (System.nanoTime() - start) / 1_000_000);
                awaitState(sessions, SessionState.ESTABLISHED);
            }
        }
    }

    @Test
    void aConnectionFromAnAddressOfNoBgpPeerIsClosedAtOnce() throws Exception {
        try (Sessions sessions = listening(spec(deadPort()))) {
            try (Socket stranger = new Socket()) {
                stranger.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                stranger.connect(
                        new InetSocketAddress(LOOPBACK, sessions.listeningPort().orElseThrow()));
                stranger.setSoTimeout(WAIT_MILLIS);
                long start = System.nanoTime();
                assertThat(stranger.getInputStream().read()).as("end of stream").isEqualTo(-1);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            }
            assertThat(sessions.statuses().getFirst().state()).isNotEqualTo(SessionState.OPEN_SENT);
        }
    }

    @Test
    void whenBothSidesConnectedTheRoutersConnectionStaysIfItsIdentifierIsHigher() throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            try (Sessions sessions = listening(spec(router.getLocalPort()));
                    Socket ours = router.accept()) {
                ours.setSoTimeout(WAIT_MILLIS);
                // the session's connection is up (its OPEN came) when the router's own connects
                assertThat(SessionsGracefulRestartTest.read(ours.getInputStream()))
                        .isInstanceOf(Message.Open.class);
                try (Socket theirs =
                        new Socket(LOOPBACK, sessions.listeningPort().orElseThrow())) {
                    theirs.setSoTimeout(WAIT_MILLIS);
                    // a router sends its OPEN on each connection at once
                    sendOpen(theirs, "10.0.0.9");
                    sendOpen(ours, "10.0.0.9");
                    // the session read the router's ID on its own connection: the router's connection wins
                    assertThat(messagesUntilClosed(ours))
                            .endsWith("NOTIFICATION Cease / Connection Collision Resolution");
                    Message.Open open = (Message.Open) SessionsGracefulRestartTest.read(theirs.getInputStream());
                    assertThat(open.bgpIdentifier())
                            .isEqualTo(IpAddress.parse("10.0.0.5").orElseThrow());
                    theirs.getOutputStream().write(MessageEncoder.encode(new Message.Keepalive(), true));
                    assertThat(untilEndOfRib(theirs)).containsExactly("KEEPALIVE", "198.51.100.10/32", "EoR");
                    awaitState(sessions, SessionState.ESTABLISHED);
                }
            }
        }
    }

    @Test
    void whenBothSidesConnectedOurConnectionStaysIfOurIdentifierIsHigherAndAnEstablishedOneIsNeverReplaced()
            throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            try (Sessions sessions = listening(spec(router.getLocalPort()));
                    Socket ours = router.accept()) {
                ours.setSoTimeout(WAIT_MILLIS);
                assertThat(SessionsGracefulRestartTest.read(ours.getInputStream()))
                        .isInstanceOf(Message.Open.class);
                try (Socket theirs =
                        new Socket(LOOPBACK, sessions.listeningPort().orElseThrow())) {
                    theirs.setSoTimeout(WAIT_MILLIS);
                    sendOpen(theirs, "10.0.0.1");
                    sendOpen(ours, "10.0.0.1");
                    assertThat(messagesUntilClosed(theirs))
                            .containsExactly("NOTIFICATION Cease / Connection Collision Resolution");
                    ours.getOutputStream().write(MessageEncoder.encode(new Message.Keepalive(), true));
                    assertThat(untilEndOfRib(ours)).containsExactly("KEEPALIVE", "198.51.100.10/32", "EoR");
                    awaitState(sessions, SessionState.ESTABLISHED);

                    // the router connects again while the session is Established: that connection is refused
                    try (Socket again =
                            new Socket(LOOPBACK, sessions.listeningPort().orElseThrow())) {
                        again.setSoTimeout(WAIT_MILLIS);
                        sendOpen(again, "10.0.0.9");
                        assertThat(messagesUntilClosed(again))
                                .containsExactly("NOTIFICATION Cease / Connection Collision Resolution");
                    }
                    sessions.advertise("router", Set.of(Route.of(SERVICE), Route.of(ANOTHER)));
                    assertThat(untilUpdate(ours)).as("the session goes on").contains("198.51.100.11/32");
                    assertThat(sessions.statuses().getFirst().state()).isEqualTo(SessionState.ESTABLISHED);
                }
            }
        }
    }

    @Test
    void aPeerWithAPasswordGetsInOnlyWithItsTcpMd5KeyOnBothFamiliesSocket() throws Exception {
        PeerSpec plain = spec(deadPort());
        PeerSpec signed = withPassword(plain, "s3cret");
        Md5Connector router = new Md5Connector();
        // the node's wildcard address, IPv6 and IPv4 in one socket: the key of an IPv4 peer goes in IPv4-mapped
        try (Sessions sessions = Sessions.listeningOn(
                new InetSocketAddress(InetAddress.ofLiteral("::"), 0),
                new Md5Connector(),
                Clock.systemUTC(),
                status -> {})) {
            sessions.configure(List.of(signed));
            sessions.advertise("router", Set.of(Route.of(SERVICE)));
            InetSocketAddress listener =
                    new InetSocketAddress(LOOPBACK, sessions.listeningPort().orElseThrow());
            assertThatThrownBy(() -> router.connect(listener, Optional.empty(), Optional.empty(), SHORT))
                    .as("unsigned")
                    .hasMessageContaining("within");
            assertThatThrownBy(() -> router.connect(listener, Optional.empty(), Optional.of("wrong"), SHORT))
                    .as("another key")
                    .hasMessageContaining("within");
            try (Connection connection = router.connect(listener, Optional.empty(), Optional.of("s3cret"), SHORT)) {
                assertThat(read(connection)).isInstanceOf(Message.Open.class);
            }
            // the password removed from the BGPPeer: unsigned connections get in again
            sessions.configure(List.of(plain));
            try (Connection connection = router.connect(listener, Optional.empty(), Optional.empty(), SHORT)) {
                assertThat(read(connection)).isInstanceOf(Message.Open.class);
            }
        }
    }

    private static Message read(Connection connection) throws IOException {
        return SessionsGracefulRestartTest.read(connection.input());
    }

    private static PeerSpec withPassword(PeerSpec s, String password) {
        return new PeerSpec(
                s.name(),
                s.address(),
                s.port(),
                s.myAsn(),
                s.peerAsn(),
                s.dynamicAsn(),
                s.sourceAddress(),
                s.routerId(),
                s.holdTime(),
                s.keepaliveTime(),
                s.connectTime(),
                Optional.of(password),
                s.ebgpMultiHop(),
                s.gracefulRestart(),
                s.dualStack(),
                s.bfd());
    }

    @Test
    void aPortAnotherProcessHoldsLeavesTheSpeakerConnectOnlyWithOneWarning() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(BgpListener.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        // another BGP daemon on the node (Calico's BIRD): its socket on every address of the node
        try (ServerSocket taken = new ServerSocket(0, 4, InetAddress.ofLiteral("::"));
                ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            try (Sessions sessions =
                    Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {}, taken.getLocalPort())) {
                assertThat(sessions.listeningPort()).isEmpty();
                assertThat(log.list)
                        .filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .singleElement()
                        .asString()
                        .startsWith("BGP: cannot listen on TCP port " + taken.getLocalPort() + " (")
                        .contains("is in use by another socket")
                        .contains("the speaker stays connect-only");
                sessions.configure(List.of(spec(router.getLocalPort())));
                sessions.advertise("router", Set.of(Route.of(SERVICE)));
                try (Socket ours = router.accept()) {
                    exchangeOpens(ours, "10.0.0.1");
                    assertThat(untilEndOfRib(ours))
                            .as("the session connects out as before")
                            .containsExactly("KEEPALIVE", "198.51.100.10/32", "EoR");
                }
            }
        } finally {
            logger.detachAppender(log);
        }
    }

    private static Sessions listening(PeerSpec spec) throws IOException {
        Sessions sessions = Sessions.listeningOn(
                new InetSocketAddress(LOOPBACK, 0), new Md5Connector(), Clock.systemUTC(), status -> {});
        sessions.configure(List.of(spec));
        sessions.advertise(spec.name(), Set.of(Route.of(SERVICE)));
        return sessions;
    }

    /** The BGPPeer's default connectTime of 120 s. */
    private static PeerSpec spec(int port) {
        return PeerSpecs.onLoopback("router", port, Duration.ofSeconds(90), Duration.ofSeconds(120));
    }

    private static int deadPort() throws IOException {
        try (ServerSocket gone = new ServerSocket(0, 1, LOOPBACK)) {
            return gone.getLocalPort();
        }
    }

    private static void sendOpen(Socket connection, String routerId) throws IOException {
        List<Capability> capabilities = List.of(
                Capability.Multiprotocol.of(Family.IPV4_UNICAST),
                new Capability.FourOctetAs(64513),
                new Capability.GracefulRestart(false, 120, List.of()));
        Message.Open open = Message.Open.of(64513, 90, IpAddress.parse(routerId).orElseThrow(), capabilities);
        connection.getOutputStream().write(MessageEncoder.encode(open, true));
    }

    /** The router's OPEN and a KEEPALIVE out, our OPEN in. */
    private static Message.Open exchangeOpens(Socket connection, String routerId) throws IOException {
        connection.setSoTimeout(WAIT_MILLIS);
        sendOpen(connection, routerId);
        Message.Open ours = (Message.Open) SessionsGracefulRestartTest.read(connection.getInputStream());
        connection.getOutputStream().write(MessageEncoder.encode(new Message.Keepalive(), true));
        return ours;
    }

    private static List<String> untilEndOfRib(Socket connection) throws IOException {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            switch (SessionsGracefulRestartTest.read(connection.getInputStream())) {
                case Message.Update update
                when update.endOfRibFamily().isPresent() -> {
                    seen.add("EoR");
                    return seen;
                }
                case Message.Update update -> update.nlri().forEach(p -> seen.add(p.toString()));
                case Message.Keepalive _ -> seen.add("KEEPALIVE");
                case Message other -> seen.add(other.getClass().getSimpleName());
            }
        }
        return seen;
    }

    private static List<String> untilUpdate(Socket connection) throws IOException {
        for (int i = 0; i < 20; i++) {
            if (SessionsGracefulRestartTest.read(connection.getInputStream()) instanceof Message.Update update) {
                return update.nlri().stream().map(Object::toString).toList();
            }
        }
        return List.of();
    }

    /** What we sent on the connection until we closed it. */
    private static List<String> messagesUntilClosed(Socket connection) throws IOException {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            java.io.PushbackInputStream in = new java.io.PushbackInputStream(connection.getInputStream(), 1);
            int first = in.read();
            if (first < 0) {
                return seen;
            }
            in.unread(first);
            seen.add(
                    switch (SessionsGracefulRestartTest.read(in)) {
                        case Message.Notification n -> "NOTIFICATION " + n.describe();
                        case Message.Keepalive _ -> "KEEPALIVE";
                        case Message other -> other.getClass().getSimpleName();
                    });
        }
        return seen;
    }

    private static void awaitState(Sessions sessions, SessionState wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (sessions.statuses().getFirst().state() != wanted && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(sessions.statuses().getFirst().state()).isEqualTo(wanted);
    }
}

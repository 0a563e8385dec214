package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.net.link.TcpSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sessions with a peer that never answers our SYNs, played by a listener on loopback that demands a TCP MD5 key we
 * do not have: what the session's status says (which the node's BGPSessionDown Event says), and that waiting for such
 * a peer stalls nothing else.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionsConnectTimeTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration CONNECT_TIME = Duration.ofSeconds(1);

    @Test
    void everyConnectionAttemptThatTimesOutSaysWhy() throws Exception {
        List<SessionStatus> seen = new CopyOnWriteArrayList<>();
        try (TcpSocket router = TcpSocket.listen(new InetSocketAddress(LOOPBACK, 0), Map.of(LOOPBACK, "s3cret"))) {
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), seen::add);
            try {
                sessions.configure(List.of(spec(router.local().getPort())));
                // four attempts or so: 1 s each, and a pause of 1 s (the connectTime caps it) after each
                Thread.sleep(7_500);
            } finally {
                sessions.close();
            }
        }
        String expected = "peer 127.0.0.1 no connection to 127.0.0.1:";
        assertThat(seen.stream().flatMap(s -> s.lastError().stream()).distinct())
                .as("the reasons the session's status gave")
                .isNotEmpty()
                .allSatisfy(
                        e -> assertThat(e)
                                .startsWith(expected)
                                .endsWith(
                                        " within 1000 ms: the peer does not answer, or expects another TCP MD5 password (or none)"));
    }

    @Test
    void connectionAttemptsThatWaitLeaveTheVirtualThreadsRunning() throws Exception {
        // one attempt more than there are carrier threads for virtual threads (the processors, unless set)
        int peers = Runtime.getRuntime().availableProcessors() + 1;
        try (TcpSocket router = TcpSocket.listen(new InetSocketAddress(LOOPBACK, 0), Map.of(LOOPBACK, "s3cret"))) {
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {});
            try {
                List<PeerSpec> specs = new java.util.ArrayList<>();
                for (int i = 0; i < peers; i++) {
                    specs.add(spec("router-" + i, router.local().getPort(), Duration.ofSeconds(5)));
                }
                sessions.configure(specs);
                Thread.sleep(500); // every attempt waits for an answer that does not come

                long started = System.nanoTime();
                Thread other = Thread.ofVirtual().start(() -> {});
                assertThat(other.join(Duration.ofSeconds(4)))
                        .as("another virtual thread (the speaker's health server, leader election, Events) ran")
                        .isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
            } finally {
                sessions.close();
            }
        }
    }

    private static PeerSpec spec(int port) {
        return spec("router", port, CONNECT_TIME);
    }

    private static PeerSpec spec(String name, int port, Duration connectTime) {
        return PeerSpecs.withGracefulRestart(
                PeerSpecs.onLoopback(name, port, Duration.ofSeconds(90), connectTime), false);
    }
}

package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.net.link.TcpSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session with a peer that never answers our SYNs, played by a listener on loopback that demands a TCP MD5 key we
 * do not have: what the session's status says, which is what the node's BGPSessionDown Event says.
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

    private static PeerSpec spec(int port) {
        return new PeerSpec(
                "router",
                IpAddress.of(LOOPBACK),
                port,
                64512,
                OptionalLong.of(64513),
                Optional.empty(),
                Optional.empty(),
                Optional.of(IpAddress.parse("10.0.0.5").orElseThrow()),
                Duration.ofSeconds(90),
                Optional.empty(),
                CONNECT_TIME,
                Optional.empty(),
                false,
                false,
                false,
                Optional.empty());
    }
}

package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Capability;
import io.lbk8s.bgp.Decoded;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageDecoder;
import io.lbk8s.bgp.MessageEncoder;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpecs;
import io.lbk8s.bgp.Route;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Our sessions as a router with graceful restart sees them, played by a listener on loopback that speaks BGP with
 * our own codecs: the Restart State bit of each OPEN, and the full table and End-of-RIB after each OPEN.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionsGracefulRestartTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int WAIT_MILLIS = 10_000;
    private static final IpPrefix SERVICE = IpPrefix.parse("198.51.100.10/32").orElseThrow();

    @Test
    void aNewProcessSaysItRestartedUntilItsFirstSessionAndSendsItsTableAndEndOfRibEachTime() throws Exception {
        try (ServerSocket router = new ServerSocket(0, 4, LOOPBACK)) {
            router.setSoTimeout(WAIT_MILLIS);
            PeerSpec spec = spec(router.getLocalPort(), Duration.ofSeconds(90));

            Sessions process = started(spec);
            try {
                try (Socket first = router.accept()) {
                    assertThat(restartState(first))
                            .as("the first OPEN of the process")
                            .isTrue();
                    assertThat(afterOpen(first)).as("its first full table").containsExactly("198.51.100.10/32", "EoR");
                }
                // the router closed the connection: the session comes back within the same process
                try (Socket again = router.accept()) {
                    assertThat(restartState(again))
                            .as("a reconnect within the process")
                            .isFalse();
                    assertThat(afterOpen(again)).as("the table again").containsExactly("198.51.100.10/32", "EoR");
                }
                // an edited BGPPeer restarts the session, not the process
                process.configure(List.of(spec(router.getLocalPort(), Duration.ofSeconds(60))));
                try (Socket edited = router.accept()) {
                    assertThat(restartState(edited))
                            .as("after the BGPPeer changed")
                            .isFalse();
                }
            } finally {
                process.close();
            }

            Sessions restarted = started(spec);
            try (Socket afterRestart = router.accept()) {
                assertThat(restartState(afterRestart))
                        .as("the first OPEN of the next process")
                        .isTrue();
            } finally {
                restarted.close();
            }
        }
    }

    private static Sessions started(PeerSpec spec) {
        Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), status -> {});
        sessions.configure(List.of(spec));
        sessions.advertise(spec.name(), Set.of(Route.of(SERVICE)));
        return sessions;
    }

    /**
     * Reads our OPEN, answers it with the router's and a KEEPALIVE; whether ours had the Restart State bit. Shared with
     * {@link SessionsReconfigureTest}.
     */
    static boolean restartState(Socket connection) throws IOException {
        return answerOpen(connection, Family.IPV4_UNICAST)
                .capability(Capability.GracefulRestart.class)
                .orElseThrow()
                .restarting();
    }

    /** Reads our OPEN and answers it with a router's that announces {@code families}, and a KEEPALIVE; ours. */
    static Message.Open answerOpen(Socket connection, Family... families) throws IOException {
        connection.setSoTimeout(WAIT_MILLIS);
        Message.Open ours = (Message.Open) read(connection.getInputStream());
        List<Capability> capabilities = new ArrayList<>();
        for (Family family : families) {
            capabilities.add(Capability.Multiprotocol.of(family));
        }
        capabilities.add(new Capability.FourOctetAs(64513));
        capabilities.add(new Capability.GracefulRestart(false, 120, List.of()));
        Message.Open theirs =
                Message.Open.of(64513, 90, IpAddress.parse("10.0.0.1").orElseThrow(), capabilities);
        connection.getOutputStream().write(MessageEncoder.encode(theirs, true));
        connection.getOutputStream().write(MessageEncoder.encode(new Message.Keepalive(), true));
        return ours;
    }

    /** The prefixes our UPDATEs announce, in order, with "EoR" for End-of-RIB, up to that End-of-RIB. */
    private static List<String> afterOpen(Socket connection) throws IOException {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            if (read(connection.getInputStream()) instanceof Message.Update update) {
                if (update.endOfRibFamily().isPresent()) {
                    seen.add("EoR");
                    return seen;
                }
                update.nlri().forEach(p -> seen.add(p.toString()));
            }
        }
        return seen;
    }

    static Message read(InputStream in) throws IOException {
        byte[] header = in.readNBytes(MessageDecoder.HEADER);
        byte[] rest = in.readNBytes(MessageDecoder.length(header) - MessageDecoder.HEADER);
        byte[] message = new byte[header.length + rest.length];
        System.arraycopy(header, 0, message, 0, header.length);
        System.arraycopy(rest, 0, message, header.length, rest.length);
        return switch (MessageDecoder.decode(message, true)) {
            case Decoded.Valid(var valid) -> valid;
            case Decoded.Revised revised -> throw new AssertionError("we sent " + revised.reason());
            case Decoded.Invalid invalid -> throw new AssertionError("we sent " + invalid.reason());
        };
    }

    private static PeerSpec spec(int port, Duration holdTime) {
        return PeerSpecs.onLoopback("router", port, holdTime, Duration.ofSeconds(2));
    }
}

package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.net.link.TcpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The connector against a listener of our own on loopback that demands (or not) a TCP MD5 key from the client. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Md5ConnectorTest {

    static final InetAddress V4 = InetAddress.getLoopbackAddress();
    static final Duration SHORT = Duration.ofMillis(700);
    final Md5Connector connector = new Md5Connector();

    @Test
    void theRightPasswordConnectsAndBytesFlowBothWays() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of(V4, "s3cret"))) {
            try (Connection client =
                    connector.connect(listener.local(), Optional.empty(), Optional.of("s3cret"), SHORT)) {
                TcpSocket server = listener.accept(SHORT).orElseThrow();
                client.output().write("OPEN".getBytes(StandardCharsets.US_ASCII));
                assertThat(readExactly(server, 4)).isEqualTo("OPEN");
                server.write("KEEPALIVE".getBytes(StandardCharsets.US_ASCII), 0, 9);
                assertThat(new String(client.input().readNBytes(9), StandardCharsets.US_ASCII))
                        .isEqualTo("KEEPALIVE");
                assertThat(client.remote()).isEqualTo(listener.local());
                assertThat(client.local().getAddress()).isEqualTo(V4);
                server.close();
                assertThat(client.input().read())
                        .as("end of stream after the peer closed")
                        .isEqualTo(-1);
            }
        }
    }

    @Test
    void overIpv6TooWithTheKeyForTheClientsAddress() throws Exception {
        InetAddress v6 = InetAddress.ofLiteral("::1");
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(v6, 0), Map.of(v6, "six"));
                Connection client = connector.connect(listener.local(), Optional.of(v6), Optional.of("six"), SHORT)) {
            TcpSocket server = listener.accept(SHORT).orElseThrow();
            client.output().write(new byte[] {1, 2, 3});
            assertThat(readExactly(server, 3)).isEqualTo("\1\2\3");
            server.close();
        }
    }

    @ParameterizedTest(name = "{0} TTL {1}")
    @CsvSource({"127.0.0.1, 1", "127.0.0.1, 255", "::1, 1", "::1, 255"})
    void theSocketSendsWithTheTtlAskedFor(String address, int ttl) throws Exception {
        InetAddress loopback = InetAddress.ofLiteral(address);
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(loopback, 0), Map.of());
                TcpSocket client = TcpSocket.connect(
                        listener.local(), Optional.empty(), Optional.empty(), OptionalInt.of(ttl), SHORT)) {
            assertThat(client.ttl()).isEqualTo(ttl);
            assertThat(listener.accept(SHORT))
                    .as("TTL 1 reaches a directly connected peer")
                    .isPresent();
        }
    }

    @Test
    void withoutATtlTheSystemsDefault() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of());
                TcpSocket client = TcpSocket.connect(listener.local(), Optional.empty(), Optional.empty(), SHORT)) {
            assertThat(client.ttl())
                    .isEqualTo(Integer.parseInt(
                            java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_default_ttl"))
                                    .getFirst()
                                    .strip()));
        }
    }

    @Test
    void aWrongPasswordNeverConnects() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of(V4, "s3cret"))) {
            assertThatThrownBy(() -> connector.connect(listener.local(), Optional.empty(), Optional.of("guess"), SHORT))
                    .isInstanceOf(IOException.class)
                    .hasMessage("no connection to 127.0.0.1:" + listener.local().getPort()
                            + " within 700 ms: the peer does not answer, or expects another TCP MD5 password (or"
                            + " none)");
            assertThat(listener.accept(Duration.ofMillis(100))).isEmpty();
        }
    }

    @Test
    void noPasswordWhereThePeerWantsOneNeverConnects() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of(V4, "s3cret"))) {
            assertThatThrownBy(() -> connector.connect(listener.local(), Optional.empty(), Optional.empty(), SHORT))
                    .hasMessageStartingWith("no connection to 127.0.0.1:");
            assertThat(listener.accept(Duration.ofMillis(100))).isEmpty();
        }
    }

    @Test
    void withoutAPasswordItIsAPlainTcpConnection() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of());
                Connection client = connector.connect(listener.local(), Optional.of(V4), Optional.empty(), SHORT)) {
            TcpSocket server = listener.accept(SHORT).orElseThrow();
            server.write(new byte[] {42}, 0, 1);
            assertThat(client.input().read()).isEqualTo(42);
            server.close();
        }
    }

    @Test
    void aClosedPortIsRefused() throws Exception {
        InetSocketAddress unused;
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of())) {
            unused = listener.local();
        }
        assertThatThrownBy(() -> connector.connect(unused, Optional.empty(), Optional.empty(), SHORT))
                .hasMessage("connection to 127.0.0.1:" + unused.getPort() + " refused: nothing listens there");
    }

    @Test
    void aPasswordLongerThanLinuxTakesIsRefusedBeforeConnecting() {
        String tooLong = "x".repeat(81);
        assertThatThrownBy(() -> connector.connect(
                        new InetSocketAddress(V4, 179), Optional.empty(), Optional.of(tooLong), SHORT))
                .isInstanceOf(IOException.class)
                .hasMessage("the TCP MD5 password is 81 bytes long; Linux takes at most 80");
    }

    @Test
    void aSourceAddressThatIsNotOursIsNamed() {
        assertThatThrownBy(() -> connector.connect(
                        new InetSocketAddress(V4, 179),
                        Optional.of(InetAddress.ofLiteral("192.0.2.1")),
                        Optional.empty(),
                        SHORT))
                .hasMessage("cannot use source address 192.0.2.1: it is not an address of this node");
    }

    @Test
    void closingWakesASessionWaitingForInput() throws Exception {
        try (TcpSocket listener = TcpSocket.listen(new InetSocketAddress(V4, 0), Map.of())) {
            Connection client = connector.connect(listener.local(), Optional.empty(), Optional.empty(), SHORT);
            Thread waiting = Thread.ofVirtual().start(() -> {
                try {
                    client.input().read();
                } catch (IOException ignored) {
                    // either way it returned
                }
            });
            Thread.sleep(100);
            client.close();
            assertThat(waiting.join(Duration.ofSeconds(3)))
                    .as("the reader returned")
                    .isTrue();
        }
    }

    private static String readExactly(TcpSocket socket, int count) throws IOException {
        byte[] buffer = new byte[count];
        int at = 0;
        while (at < count) {
            int n = socket.read(buffer, at, count - at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        return new String(buffer, 0, at, StandardCharsets.ISO_8859_1);
    }
}

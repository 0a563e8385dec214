package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlainConnectorTest {
    private final PlainConnector connector = new PlainConnector();

    @Test
    void aPasswordNeedsTheMd5Connector() {
        assertThatThrownBy(() -> connector.connect(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), 179),
                        Optional.empty(),
                        Optional.of("secret"),
                        Duration.ofSeconds(1)))
                .isInstanceOf(IOException.class)
                .hasMessage("has a password, and TCP MD5 needs the MD5 connector, which this one is not");
    }

    @Test
    void aClosedPortIsReportedAsARefusedConnection() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }

        assertThatThrownBy(() -> connector.connect(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        Optional.empty(),
                        Optional.empty(),
                        Duration.ofSeconds(1)))
                .hasMessage("refused the connection to port " + port);
    }

    @Test
    void aConnectionKnowsItsEndsForTheNextHop() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Connection connection = connector.connect(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                        Optional.of(InetAddress.getLoopbackAddress()),
                        Optional.empty(),
                        Duration.ofSeconds(1))) {
            assertThat(connection.remote().getPort()).isEqualTo(server.getLocalPort());
            assertThat(connection.local().getAddress()).isEqualTo(InetAddress.getLoopbackAddress());
        }
    }
}

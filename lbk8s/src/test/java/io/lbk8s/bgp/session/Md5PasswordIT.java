package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.testkit.net.TestNetwork;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connector against BIRD's bgpd with {@code password} (TCP MD5), BIRD in the test network's client namespace and
 * this JVM on the host leg: only the right password gets a TCP session, on which BIRD's OPEN arrives.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Md5PasswordIT {

    static TestNetwork network;
    static TestBird bird;
    static InetSocketAddress birdBgp;
    static InetAddress host;
    final Md5Connector connector = new Md5Connector();

    @BeforeAll
    static void startBird() throws Exception {
        network = TestBird.network("/usr/sbin/bird");
        host = network.hostAddress();
        InetAddress router = network.client().ipv4();
        birdBgp = new InetSocketAddress(router, 179);
        bird = TestBird.start(
                network,
                "protocol bgp lab {\n"
                        + "  local " + router.getHostAddress() + " as 64512;\n"
                        + "  neighbor " + host.getHostAddress() + " as 64513;\n"
                        + "  password \"s3cret\";\n"
                        + "  passive on;\n"
                        + "  ipv4 { import none; export none; };\n"
                        + "}\n");
    }

    @AfterAll
    static void stop() {
        if (network != null) {
            network.close();
        }
    }

    @Test
    void theRightPasswordGetsBirdsOpen() throws Exception {
        try (Connection connection =
                connector.connect(birdBgp, Optional.of(host), Optional.of("s3cret"), Duration.ofSeconds(3))) {
            byte[] header = connection.input().readNBytes(19);
            assertThat(Arrays.copyOf(header, 16)).as("the BGP marker").containsOnly((byte) 0xff);
            assertThat(header[18]).as("message type 1, OPEN").isEqualTo((byte) 1);
            assertThat(connection.local().getAddress()).isEqualTo(host);
        }
    }

    @Test
    void aWrongPasswordGetsNoConnection() {
        assertThatThrownBy(() ->
                        connector.connect(birdBgp, Optional.of(host), Optional.of("guess"), Duration.ofSeconds(2)))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        "no connection to " + birdBgp.getAddress().getHostAddress() + ":179 within 2000 ms");
    }

    @Test
    void noPasswordGetsNoConnection() {
        assertThatThrownBy(() -> connector.connect(birdBgp, Optional.of(host), Optional.empty(), Duration.ofSeconds(2)))
                .hasMessageContaining("expects another TCP MD5 password (or none)");
    }
}

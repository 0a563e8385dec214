package io.lbk8s.bfd;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.session.TestBird;
import io.lbk8s.testkit.net.TestNetwork;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * BFD against BIRD's {@code protocol bfd} at 300 ms x 3, BIRD in the test network's client namespace and this JVM's
 * BfdSessions on the host leg: the session comes Up on both sides, and BIRD sees it Down about a second after our
 * packets stop, or at once when we close.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BfdWithBirdIT {

    static TestNetwork network;
    static TestBird bird;
    static InetAddress host;
    static InetAddress router;
    final BlockingQueue<BfdState> changes = new LinkedBlockingQueue<>();
    BfdSessions bfd;

    @BeforeAll
    static void startBird() throws Exception {
        network = TestBird.network("/usr/sbin/bird");
        host = network.hostAddress();
        router = network.client().ipv4();
        bird = TestBird.start(
                network,
                "protocol bfd {\n"
                        + "  interface \"" + network.client().interfaceName() + "\" {\n"
                        + "    min rx interval 300 ms; min tx interval 300 ms; multiplier 3;\n"
                        + "  };\n"
                        + "  neighbor " + host.getHostAddress() + " dev \""
                        + network.client().interfaceName()
                        + "\" local " + router.getHostAddress() + ";\n"
                        + "}\n");
    }

    @AfterAll
    static void stop() {
        if (network != null) {
            network.close();
        }
    }

    @AfterEach
    void closeBfd() {
        if (bfd != null) {
            bfd.close();
        }
        network.run(
                network.client().namespace(),
                Duration.ofSeconds(5),
                "/usr/sbin/nft",
                "delete",
                "table",
                "inet",
                "bfdtest");
    }

    @Test
    void theSessionComesUpOnBothSides() throws Exception {
        BfdSession session = watchBird();
        assertThat(awaitOurState(BfdState.UP, Duration.ofSeconds(10))).isTrue();
        assertThat(awaitBirdState("Up", Duration.ofSeconds(5)))
                .as(bird.birdc("show bfd sessions").output())
                .isLessThan(Duration.ofSeconds(5));
        assertThat(session.state()).isEqualTo(BfdState.UP);
    }

    @Test
    void birdSeesDownAboutASecondAfterOurPacketsStop() throws Exception {
        watchBird();
        assertThat(awaitOurState(BfdState.UP, Duration.ofSeconds(10))).isTrue();
        awaitBirdState("Up", Duration.ofSeconds(5));

        // a frozen node: its packets stop arriving, nothing says goodbye
        String rules = "add table inet bfdtest; add chain inet bfdtest in { type filter hook input priority 0; };"
                + " add rule inet bfdtest in udp dport 3784 drop";
        assertThat(network.run(network.client().namespace(), Duration.ofSeconds(5), "/usr/sbin/nft", rules)
                        .ok())
                .isTrue();
        Duration toDown = awaitBirdState("Down", Duration.ofSeconds(5));
        System.out.println("BIRD saw the session Down " + toDown.toMillis() + " ms after our packets stopped");
        assertThat(toDown).isLessThan(Duration.ofMillis(1300));
        assertThat(awaitOurState(BfdState.DOWN, Duration.ofSeconds(3)))
                .as("BIRD told us")
                .isTrue();
    }

    @Test
    void birdSeesDownAtOnceWhenWeClose() throws Exception {
        BfdSession session = watchBird();
        assertThat(awaitOurState(BfdState.UP, Duration.ofSeconds(10))).isTrue();
        awaitBirdState("Up", Duration.ofSeconds(5));

        session.close();
        Duration toDown = awaitBirdState("Down", Duration.ofSeconds(5));
        System.out.println("BIRD saw the session Down " + toDown.toMillis() + " ms after our AdminDown");
        assertThat(toDown).isLessThan(Duration.ofMillis(500));
    }

    private BfdSession watchBird() throws Exception {
        bfd = BfdSessions.open(List.of(host));
        return bfd.watch(IpAddress.of(host), IpAddress.of(router), BfdSettings.DEFAULTS, changes::add);
    }

    private boolean awaitOurState(BfdState wanted, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (changes.poll(50, TimeUnit.MILLISECONDS) == wanted) {
                return true;
            }
        }
        return false;
    }

    /** How long until birdc shows our session in {@code state}; fails after {@code within}. */
    private Duration awaitBirdState(String state, Duration within) throws InterruptedException {
        long start = System.nanoTime();
        while (System.nanoTime() - start < within.toNanos()) {
            if (birdState().equals(state)) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("BIRD never showed " + state + ":\n"
                + bird.birdc("show bfd sessions").output());
    }

    /** The State column of our row in {@code show bfd sessions}. */
    private String birdState() {
        for (String line : bird.birdc("show bfd sessions").output().lines().toList()) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 3 && columns[0].equals(host.getHostAddress())) {
                return columns[2];
            }
        }
        return "absent";
    }
}

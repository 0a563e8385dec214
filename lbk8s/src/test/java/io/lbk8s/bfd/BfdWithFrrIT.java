package io.lbk8s.bfd;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.session.TestBird;
import io.lbk8s.testkit.TempFiles;
import io.lbk8s.testkit.net.TestNetwork;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * BFD against FRR's bfdd (standalone: single-hop peers need no zebra) at 300 ms x 3, bfdd in the test network's
 * client namespace running as user frr with its config and vty socket in a temporary directory, this JVM's
 * BfdSessions on the host leg: Up on both sides, and Down on bfdd about a second after our packets stop.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BfdWithFrrIT {

    static final Pattern STATUS = Pattern.compile("\"status\":\"(\\w+)\"");
    static TestNetwork network;
    static Path dir;
    static InetAddress host;
    static InetAddress router;
    final BlockingQueue<BfdState> changes = new LinkedBlockingQueue<>();

    @BeforeAll
    static void startBfdd() throws Exception {
        network = TestBird.network("/usr/lib/frr/bfdd");
        host = network.hostAddress();
        router = network.client().ipv4();
        // bfdd drops to user frr: its directory must be open to it, which the network's log directory is not
        dir = Files.createTempDirectory(
                "lbk8s-bfdd-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path config = dir.resolve("bfdd.conf");
        Files.writeString(
                config,
                "bfd\n peer " + host.getHostAddress() + " local-address " + router.getHostAddress() + "\n"
                        + "  receive-interval 300\n  transmit-interval 300\n  detect-multiplier 3\n !\n!\n");
        network.start(
                network.client().namespace(),
                List.of(
                        "/usr/lib/frr/bfdd",
                        "-f",
                        config.toString(),
                        "-i",
                        dir.resolve("bfdd.pid").toString(),
                        "--vty_socket",
                        dir.toString(),
                        "-z",
                        dir.resolve("zserv.api").toString(),
                        "-u",
                        "frr",
                        "-g",
                        "frr",
                        "--log",
                        "stdout"),
                dir.resolve("bfdd.log"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!status().equals("down") && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    @AfterAll
    static void stop() {
        if (network != null) {
            network.close();
        }
        if (dir != null) {
            TempFiles.deleteRecursively(dir);
        }
    }

    @Test
    void upOnBothSidesThenDownOnBfddAboutASecondAfterOurPacketsStop() throws Exception {
        try (BfdSessions bfd = BfdSessions.open(List.of(host))) {
            BfdSession session =
                    bfd.watch(IpAddress.of(host), IpAddress.of(router), BfdSettings.DEFAULTS, changes::add);
            assertThat(awaitOurState(BfdState.UP)).isTrue();
            awaitStatus("up", Duration.ofSeconds(5));
            assertThat(session.state()).isEqualTo(BfdState.UP);

            String rules = "add table inet bfdtest; add chain inet bfdtest in { type filter hook input priority 0; };"
                    + " add rule inet bfdtest in udp dport 3784 drop";
            assertThat(network.run(network.client().namespace(), Duration.ofSeconds(5), "/usr/sbin/nft", rules)
                            .ok())
                    .isTrue();
            Duration toDown = awaitStatus("down", Duration.ofSeconds(5));
            System.out.println("bfdd saw the session down " + toDown.toMillis() + " ms after our packets stopped");
            assertThat(toDown).isLessThan(Duration.ofMillis(1300));
            assertThat(awaitOurState(BfdState.DOWN)).as("bfdd told us").isTrue();
        }
    }

    private boolean awaitOurState(BfdState wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (changes.poll(50, TimeUnit.MILLISECONDS) == wanted) {
                return true;
            }
        }
        return false;
    }

    private static Duration awaitStatus(String wanted, Duration within) throws InterruptedException {
        long start = System.nanoTime();
        while (System.nanoTime() - start < within.toNanos()) {
            if (status().equals(wanted)) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("bfdd never showed " + wanted + ": " + peers());
    }

    /** The status of our peer in {@code show bfd peers json}: down, init, up, or absent. */
    private static String status() {
        Matcher matcher = STATUS.matcher(peers());
        return matcher.find() ? matcher.group(1) : "absent";
    }

    private static String peers() {
        return network.run(
                        network.client().namespace(),
                        Duration.ofSeconds(5),
                        "/usr/bin/vtysh",
                        "--vty_socket",
                        dir.toString(),
                        "-c",
                        "show bfd peers json")
                .output();
    }
}

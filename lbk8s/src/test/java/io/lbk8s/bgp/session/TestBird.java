package io.lbk8s.bgp.session;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lbk8s.net.link.RootRequired;
import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * BIRD 2 as the router in the test network's client namespace, with its config, control socket and pid file in the
 * network's log directory; the network stops it on close. Until testkit's router harness (branch bgp-routers) lands,
 * this is the few lines the FFM tests need.
 */
public final class TestBird {

    private final TestNetwork network;
    private final Path socket;
    private final NamespacedProcess process;

    private TestBird(TestNetwork network, Path socket, NamespacedProcess process) {
        this.network = network;
        this.socket = socket;
        this.process = process;
    }

    /**
     * A one-node test network for a router in its client namespace; skips (or fails on CI) without root, the
     * network tools or {@code router} (an absolute path: /usr/sbin/bird, /usr/lib/frr/bfdd).
     */
    public static TestNetwork network(String router) throws IOException {
        RootRequired.check();
        boolean installed = Files.isExecutable(Path.of(router));
        if (!installed && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException(router + " is missing: bin/prerequisites installs frr and bird2");
        }
        assumeTrue(installed, router + " is not installed");
        assumeTrue(
                TestNetwork.missingPrerequisites().isEmpty(),
                () -> TestNetwork.missingPrerequisites().get());
        return TestNetwork.create(1);
    }

    /** Starts bird with {@code protocols} after a router id and the device protocol; returns once birdc answers. */
    public static TestBird start(TestNetwork network, String protocols) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(network.logDirectory(), "bird-");
        Path config = dir.resolve("bird.conf");
        Path socket = dir.resolve("bird.ctl");
        Files.writeString(
                config,
                "router id " + network.client().ipv4().getHostAddress() + ";\n"
                        + "protocol device { scan time 1; }\n"
                        + protocols);
        NamespacedProcess process = network.start(
                network.client().namespace(),
                List.of(
                        "/usr/sbin/bird",
                        "-f",
                        "-c",
                        config.toString(),
                        "-s",
                        socket.toString(),
                        "-P",
                        dir.resolve("bird.pid").toString()),
                dir.resolve("bird.log"));
        TestBird bird = new TestBird(network, socket, process);
        for (int i = 0; i < 100 && !bird.birdc("show status").output().contains("Daemon is up"); i++) {
            if (!process.isAlive()) {
                throw new IllegalStateException("bird exited: " + Files.readString(dir.resolve("bird.log")));
            }
            Thread.sleep(50);
        }
        return bird;
    }

    public CommandResult birdc(String command) {
        return network.run(
                network.client().namespace(),
                Duration.ofSeconds(5),
                "/usr/sbin/birdc",
                "-s",
                socket.toString(),
                command);
    }

    public NamespacedProcess process() {
        return process;
    }
}

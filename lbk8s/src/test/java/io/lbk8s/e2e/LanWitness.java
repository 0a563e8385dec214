package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.ArpProbe;
import io.lbk8s.testkit.net.ArpWatch;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The client as a witness of a failover: it asks who has the address 20 times a second (ArpProbe, broadcast, whether
 * answered or not) while tcpdump records every answer, so that a test can assert that two MACs never answered for
 * the address within 100 ms of each other, and which MACs answered at all.
 */
final class LanWitness implements AutoCloseable {
    static final Duration TWO_MACS_WINDOW = Duration.ofMillis(100);

    private final ArpWatch watch;
    private final NamespacedProcess asker;
    private final InetAddress ip;

    private LanWitness(ArpWatch watch, NamespacedProcess asker, InetAddress ip) {
        this.watch = watch;
        this.asker = asker;
        this.ip = ip;
    }

    /** Asks for {@code ip} for at most {@code seconds}; logs go to {@code logs}. */
    static LanWitness watch(TestNetwork network, InetAddress ip, int seconds, Path logs) {
        ArpWatch watch = ArpWatch.start(network, logs.resolve("arp-watch-" + System.nanoTime() + ".log"));
        var client = network.client();
        NamespacedProcess asker = network.start(
                client.namespace(),
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classPath(),
                        ArpProbe.class.getName(),
                        client.interfaceName(),
                        client.ipv4().getHostAddress(),
                        ip.getHostAddress(),
                        String.valueOf(seconds * 20),
                        "20"),
                logs.resolve("arp-asker-" + System.nanoTime() + ".log"));
        return new LanWitness(watch, asker, ip);
    }

    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    List<ArpWatch.Answer> answers() {
        return watch.answers(ip);
    }

    /** Fails when two MACs answered for the address less than 100 ms apart. */
    void assertNeverTwoMacs() {
        assertThat(ArpWatch.overlaps(answers(), TWO_MACS_WINDOW))
                .as("two MACs answering for %s within 100 ms", ip)
                .isEmpty();
    }

    /** The MACs that answered after {@code epochMicros}, in order of their first answer. */
    List<String> macsSince(long epochMicros) {
        return ArpWatch.macs(
                answers().stream().filter(a -> a.epochMicros() >= epochMicros).toList());
    }

    @Override
    public void close() {
        asker.stop(Duration.ofSeconds(1));
        watch.close();
    }
}

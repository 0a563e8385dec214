package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.link.RootRequired;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The answer fence on the namespace network: a responder in namespace A (a child JVM with a renewable fence,
 * lapsed until renewed), asked by arping and ndisc6 from namespace B. Each test builds its own namespaces.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FenceNetworkTest {

    static final String VIP4 = "198.18.99.200";
    static final String VIP6 = "fd99::200";
    static final String OTHER_MAC = "02:00:00:00:00:99";

    TestNetwork network;
    ChildJvm responder;

    @BeforeEach
    void network() {
        RootRequired.check();
        network = TestNetwork.create();
    }

    @AfterEach
    void stop() throws Exception {
        if (responder != null) {
            responder.signal("CONT"); // a test that failed while the child was stopped must not leave it so
        }
        ChildJvm.closeThenRemove(responder, network);
    }

    @Test
    void theKernelAnswersOnlyWhileTheFenceIsRenewed() throws Exception {
        start("fenced");
        assertThat(arping()).as("a fence starts lapsed").contains("Received 0 response(s)");

        assertThat(responder.command("renew 10000")).isEqualTo("ok");
        assertThat(arping()).contains("[02:00:00:00:00:0A]").contains("Received 1 response(s)");
        assertThat(count(responder.command("counts"), "responses")).isEqualTo(1);

        assertThat(responder.command("lapse")).isEqualTo("ok");
        assertThat(arping()).contains("Received 0 response(s)");
        String counts = responder.command("counts");
        assertThat(count(counts, "arpPackets"))
                .as("the program passed the request on to the raw socket")
                .isPositive();
        assertThat(count(counts, "responses"))
                .as("and the raw socket did not answer it either")
                .isEqualTo(1);

        assertThat(responder.command("renew 300")).isEqualTo("ok");
        assertThat(arping()).contains("Received 1 response(s)");
        Thread.sleep(400);
        assertThat(arping()).as("the deadline passed without renewal").contains("Received 0 response(s)");
    }

    @Test
    void theRawSocketsAnswerArpAndNdpOnlyWhileTheFenceIsRenewed() throws Exception {
        start("raw-socket", "fenced");
        assertThat(responder.command("announce " + VIP6)).isEqualTo("ok");
        assertThat(responder.command("join " + VIP6)).isEqualTo("ok");
        assertThat(arping()).contains("Received 0 response(s)");
        assertThat(ndisc6()).doesNotContain("Target link-layer address");

        assertThat(responder.command("renew 10000")).isEqualTo("ok");
        assertThat(arping()).contains("[02:00:00:00:00:0A]").contains("Received 1 response(s)");
        assertThat(ndisc6()).contains("Target link-layer address: 02:00:00:00:00:0A");

        assertThat(responder.command("lapse")).isEqualTo("ok");
        assertThat(arping()).contains("Received 0 response(s)");
        assertThat(ndisc6()).doesNotContain("Target link-layer address");

        assertThat(responder.command("renew 300")).isEqualTo("ok");
        assertThat(arping()).contains("Received 1 response(s)");
        Thread.sleep(400);
        assertThat(arping()).as("the deadline passed without renewal").contains("Received 0 response(s)");
        assertThat(ndisc6()).doesNotContain("Target link-layer address");
    }

    /**
     * A speaker renewing every 50 ms for 150 ms, then frozen by SIGSTOP (every thread at once, as a hung node): the
     * kernel answers for at most 150 ms more, with nothing running in user space, then falls silent.
     */
    @Test
    void aFrozenSpeakerFallsSilentInTheKernelWithin250Ms() throws Exception {
        start("fenced");
        assertThat(responder.command("renew-every 50 150")).isEqualTo("ok");
        Thread.sleep(500);
        assertThat(arping()).as("renewals keep it answering past one deadline").contains("Received 1 response(s)");

        long stoppedAt = System.nanoTime();
        responder.signal("STOP");
        Thread.sleep(Duration.ofNanos(stoppedAt + Duration.ofMillis(250).toNanos() - System.nanoTime()));
        assertThat(arping("-c", "2", "-w", "2")).contains("Received 0 response(s)");

        responder.signal("CONT");
        Thread.sleep(200);
        assertThat(arping()).as("renewing again once it runs").contains("Received 1 response(s)");
    }

    /** Why the fence exists, and what keeps the test above from passing by accident. */
    @Test
    void withoutAFenceAFrozenSpeakerKeepsAnsweringInTheKernel() throws Exception {
        start();
        responder.signal("STOP");
        Thread.sleep(250);
        assertThat(arping()).contains("Received 1 response(s)");
    }

    @Test
    void gratuitousAnnouncementsSendNothingWhileTheFenceIsLapsed() throws Exception {
        start("fenced");
        assertThat(responder.command("announce " + VIP6)).isEqualTo("ok");
        for (String vip : new String[] {VIP4, VIP6}) {
            TestNetwork.must(
                    "ip", "-n", network.b, "neigh", "replace", vip, "lladdr", OTHER_MAC, "dev", "b0", "nud", "stale");
        }
        assertThat(responder.command("garp " + VIP4)).isEqualTo("ok sent=false");
        assertThat(responder.command("garp " + VIP6)).isEqualTo("ok sent=false");
        Thread.sleep(300);
        assertThat(neighbor(VIP4)).contains(OTHER_MAC);
        assertThat(neighbor(VIP6)).contains(OTHER_MAC);
        assertThat(count(responder.command("counts"), "gratuitous")).isZero();

        assertThat(responder.command("renew 10000")).isEqualTo("ok");
        assertThat(responder.command("garp " + VIP4)).isEqualTo("ok sent=true");
        assertThat(responder.command("garp " + VIP6)).isEqualTo("ok sent=true");
        assertThat(eventually(VIP4)).contains("lladdr 02:00:00:00:00:0a");
        assertThat(eventually(VIP6)).contains("lladdr 02:00:00:00:00:0a");
        assertThat(count(responder.command("counts"), "gratuitous")).isEqualTo(2);
    }

    private void start(String... flags) throws Exception {
        String[] args = new String[flags.length + 1];
        args[0] = "a0";
        System.arraycopy(flags, 0, args, 1, flags.length);
        responder = ChildJvm.start(network.a, ResponderChild.class, args);
        boolean rawSocket = java.util.List.of(flags).contains("raw-socket");
        assertThat(responder.nextLine(20)).startsWith("ready a0").contains("arpInKernel=" + !rawSocket);
        assertThat(responder.command("announce " + VIP4)).isEqualTo("ok");
    }

    private String arping(String... options) {
        String[] command = options.length > 0 ? options : new String[] {"-c", "1", "-w", "1"};
        String[] full = new String[command.length + 4];
        full[0] = "arping";
        System.arraycopy(command, 0, full, 1, command.length);
        full[command.length + 1] = "-I";
        full[command.length + 2] = "b0";
        full[command.length + 3] = VIP4;
        return network.in(network.b, full).output();
    }

    private String ndisc6() {
        return network.in(network.b, "ndisc6", "-1", "-r", "1", "-w", "1000", VIP6, "b0")
                .output();
    }

    private String neighbor(String ip) {
        return network.in(network.b, "ip", "neigh", "show", ip, "dev", "b0").output();
    }

    /** The neighbor entry once it shows A's MAC, or as it is after 3 s. */
    private String eventually(String ip) throws InterruptedException {
        String last = neighbor(ip);
        for (int i = 0; i < 150 && !last.contains("lladdr 02:00:00:00:00:0a"); i++) {
            Thread.sleep(20);
            last = neighbor(ip);
        }
        return last;
    }

    private static long count(String line, String name) {
        for (String word : line.split(" ")) {
            if (word.startsWith(name + "=")) {
                return Long.parseLong(word.substring(name.length() + 1));
            }
        }
        throw new IllegalArgumentException(name + " not in " + line);
    }
}

package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.link.RootRequired;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The address probe between two nodes on a switch with MLD snooping ({@link TestNetwork#createBridged()}): node A
 * (a0, 02:00:00:00:00:0a) runs one responder answering ARP in the kernel, behind a fence renewed for the whole test
 * unless a test lapses it, and one answering from the raw socket; node B (b0, 02:00:00:00:00:0b) runs a responder
 * that answers for nothing. Each child probes on its own interface. Every test uses its own addresses and withdraws
 * them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AddressProbeNetworkTest {

    static final String MAC_A = "02:00:00:00:00:0a";
    static final String MAC_B = "02:00:00:00:00:0b";
    static final String WAIT = "400";

    static TestNetwork network;
    static ChildJvm kernelOnA;
    static ChildJvm rawSocketOnA;
    static ChildJvm onB;

    @BeforeAll
    static void start() throws Exception {
        RootRequired.check();
        network = TestNetwork.createBridged();
        try {
            kernelOnA = ChildJvm.start(network.a, ResponderChild.class, "a0", "fenced");
            rawSocketOnA = ChildJvm.start(network.a, ResponderChild.class, "a0", "raw-socket");
            onB = ChildJvm.start(network.b, ResponderChild.class, "b0", "raw-socket");
            assertThat(kernelOnA.nextLine(20)).startsWith("ready a0").contains("arpInKernel=true");
            assertThat(rawSocketOnA.nextLine(20)).startsWith("ready a0").contains("arpInKernel=false");
            assertThat(onB.nextLine(20)).startsWith("ready b0");
            assertThat(kernelOnA.command("renew 600000")).isEqualTo("ok");
        } catch (Throwable e) {
            stop();
            throw e;
        }
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            for (ChildJvm child : new ChildJvm[] {kernelOnA, rawSocketOnA}) {
                if (child != null) {
                    child.close();
                }
            }
        } finally {
            ChildJvm.closeThenRemove(onB, network);
        }
    }

    @Test
    void anAddressTheKernelAnswersForOnAIsInUseByAsMac() throws Exception {
        String vip = "198.18.99.201";
        announce(kernelOnA, vip);
        try {
            kernelOnA.command("counts"); // the raw socket's statistics restart at each read
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip)).startsWith("ok " + vip + "=" + MAC_A);
            String counts = kernelOnA.command("counts");
            assertThat(count(counts, "responses"))
                    .as("answers the program gave")
                    .isPositive();
            assertThat(count(counts, "arpPackets"))
                    .as("probes that reached the raw socket")
                    .isZero();
        } finally {
            withdraw(kernelOnA, vip);
        }
    }

    @Test
    void anAddressTheRawSocketAnswersForOnAIsInUseByAsMac() throws Exception {
        String vip = "198.18.99.202";
        announce(rawSocketOnA, vip);
        try {
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip)).startsWith("ok " + vip + "=" + MAC_A);
            assertThat(count(rawSocketOnA.command("counts"), "responses")).isPositive();
        } finally {
            withdraw(rawSocketOnA, vip);
        }
    }

    /**
     * B's duplicate address detection goes to the address's solicited-node group, which the snooping bridge
     * forwards to A only because A joined it; A's answer goes to ff02::1, which the bridge floods to B.
     */
    @Test
    void anIpv6AddressAnsweredOnAIsInUseByAsMacThroughTheSnoopingSwitch() throws Exception {
        String vip = "fd99::206";
        announce(kernelOnA, vip);
        assertThat(kernelOnA.command("join " + vip)).isEqualTo("ok");
        try {
            assertThat(groupsOnceJoined("port pa grp ff02::1:ff00:206")).contains("port pa grp ff02::1:ff00:206");
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip)).startsWith("ok " + vip + "=" + MAC_A);
        } finally {
            assertThat(kernelOnA.command("leave " + vip)).isEqualTo("ok");
            withdraw(kernelOnA, vip);
        }
    }

    /** What keeps the test above honest: the switch does filter, so without A's join B's probe never reaches A. */
    @Test
    void withoutTheJoinTheSwitchKeepsTheProbeFromA() throws Exception {
        String vip = "fd99::207";
        announce(kernelOnA, vip);
        try {
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip)).startsWith("ok none");
        } finally {
            withdraw(kernelOnA, vip);
        }
    }

    @Test
    void addressesNobodyAnswersForAreFreeAfterTheWait() throws Exception {
        String answer = onB.command("probe " + WAIT + " " + MAC_B + " 198.18.99.209 fd99::209");
        assertThat(answer).startsWith("ok none after=");
        assertThat(millis(answer)).isBetween(400L, 1500L);
    }

    @Test
    void aNodeWhoseFenceLapsedLooksFreeAndItsAddressesCanBeTaken() throws Exception {
        String vip4 = "198.18.99.203";
        String vip6 = "fd99::203";
        announce(kernelOnA, vip4);
        announce(kernelOnA, vip6);
        assertThat(kernelOnA.command("join " + vip6)).isEqualTo("ok");
        try {
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip4 + " " + vip6))
                    .startsWith("ok " + vip4 + "=" + MAC_A + " " + vip6 + "=" + MAC_A);
            assertThat(kernelOnA.command("lapse")).isEqualTo("ok");
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip4 + " " + vip6))
                    .startsWith("ok none");
        } finally {
            assertThat(kernelOnA.command("renew 600000")).isEqualTo("ok");
            kernelOnA.command("leave " + vip6);
            withdraw(kernelOnA, vip6);
            withdraw(kernelOnA, vip4);
        }
    }

    @Test
    void answersFromOurOwnMacsDoNotCount() throws Exception {
        String vip = "198.18.99.204";
        announce(kernelOnA, vip);
        try {
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + "," + MAC_A + " " + vip))
                    .startsWith("ok none");
            assertThat(onB.command("probe " + WAIT + " " + MAC_B + " " + vip)).startsWith("ok " + vip + "=" + MAC_A);
        } finally {
            withdraw(kernelOnA, vip);
        }
    }

    /** RFC 5227 and 4862: a probe for the address from another host means both must back off. */
    @Test
    void twoNodesProbingForTheSameAddressAtOnceEachSeeTheOther() throws Exception {
        String addresses = " 198.18.99.205 fd99::205";
        kernelOnA.send("probe 600 " + MAC_A + addresses);
        onB.send("probe 600 " + MAC_B + addresses);
        String seenByA = kernelOnA.nextLine(15);
        String seenByB = onB.nextLine(15);
        assertThat(seenByA).startsWith("ok 198.18.99.205=" + MAC_B + " fd99::205=" + MAC_B);
        assertThat(seenByB).startsWith("ok 198.18.99.205=" + MAC_A + " fd99::205=" + MAC_A);
    }

    /** The probe is not only for speakers: a host with the address configured answers it too. */
    @Test
    void aNodesOwnConfiguredAddressesAreInUse() throws Exception {
        assertThat(onB.command("probe " + WAIT + " " + MAC_B + " 198.18.99.1 fd99::1"))
                .startsWith("ok 198.18.99.1=" + MAC_A + " fd99::1=" + MAC_A);
    }

    private static void announce(ChildJvm child, String vip) throws InterruptedException {
        assertThat(child.command("announce " + vip)).isEqualTo("ok");
    }

    private static void withdraw(ChildJvm child, String vip) throws InterruptedException {
        assertThat(child.command("withdraw " + vip)).isEqualTo("ok");
    }

    /** The bridge's groups once {@code entry} is among them (the join's MLD report is on its way), or after 3 s. */
    private static String groupsOnceJoined(String entry) throws InterruptedException {
        String groups = network.multicastGroups();
        for (int i = 0; i < 60 && !groups.contains(entry); i++) {
            Thread.sleep(50);
            groups = network.multicastGroups();
        }
        return groups;
    }

    private static long millis(String answer) {
        Matcher m = Pattern.compile("after=(\\d+)ms").matcher(answer);
        assertThat(m.find()).as(answer).isTrue();
        return Long.parseLong(m.group(1));
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

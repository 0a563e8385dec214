package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.link.RootRequired;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The responder in namespace A, for VIPs configured nowhere, queried by the real tools from namespace B over a
 * veth pair. Everything happens inside the two namespaces, which are deleted afterwards. ARP is answered from the
 * raw socket here; {@link XdpArpNetworkTest} covers the kernel's answers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InterfaceResponderNetworkTest {

    static final String VIP4 = "198.18.99.200";
    static final String VIP6 = "fd99::200";
    static final String OTHER_MAC = "02:00:00:00:00:99";

    static TestNetwork network;
    static ChildJvm responder;

    @BeforeAll
    static void start() throws Exception {
        RootRequired.check();
        network = TestNetwork.create();
        try {
            responder = ChildJvm.start(network.a, ResponderChild.class, "a0", "raw-socket");
            assertThat(responder.nextLine(20)).startsWith("ready a0").contains("02:00:00:00:00:0a");
            for (String command : new String[] {"announce " + VIP4, "announce " + VIP6, "join " + VIP6}) {
                assertThat(responder.command(command)).isEqualTo("ok");
            }
        } catch (Throwable e) {
            stop();
            throw e;
        }
    }

    @AfterAll
    static void stop() throws Exception {
        ChildJvm.closeThenRemove(responder, network);
    }

    @Test
    void arpingGetsTheRespondersMacAndTheNeighborEntryHoldsIt() throws Exception {
        var arping = network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", VIP4);
        assertThat(arping.output()).contains("[02:00:00:00:00:0A]").contains("Received 1 response(s)");
        assertThat(arping.exitCode()).isZero();
        // arping does not fill the neighbor table itself; a datagram to the VIP makes B's kernel resolve it
        sendDatagramFromB(VIP4);
        assertThat(eventually(() -> neighbor(VIP4), "lladdr 02:00:00:00:00:0a")).contains("lladdr 02:00:00:00:00:0a");
    }

    @Test
    void anAddressNotAnnouncedGetsNoArpAnswer() {
        var arping = network.in(network.b, "arping", "-c", "1", "-w", "1", "-I", "b0", "198.18.99.201");
        assertThat(arping.output()).contains("Received 0 response(s)");
        assertThat(arping.exitCode()).isNotZero();
    }

    /** iputils' arping here has no -t, so ArpProbe sends the unicast requests. */
    @Test
    void aRequestUnicastToAnotherMacIsIgnoredOneToOurMacIsAnswered() {
        var toOther = network.in(network.b, javaCommand("--to", OTHER_MAC, "b0", "198.18.99.2", VIP4, "2"));
        assertThat(toOther.output()).contains("answered 0/2");
        var toUs = network.in(network.b, javaCommand("--to", "02:00:00:00:00:0a", "b0", "198.18.99.2", VIP4, "2"));
        assertThat(toUs.output()).contains("reply from 02:00:00:00:00:0a").contains("answered 2/2");
    }

    @Test
    void ndisc6GetsTheRespondersMac() throws Exception {
        var ndisc = network.in(network.b, "ndisc6", "-1", "-r", "1", "-w", "1000", VIP6, "b0");
        assertThat(ndisc.output())
                .contains("Target link-layer address: 02:00:00:00:00:0A")
                .contains("from " + VIP6);
        assertThat(ndisc.exitCode()).isZero();
        sendDatagramFromB(VIP6);
        assertThat(eventually(() -> neighbor(VIP6), "lladdr 02:00:00:00:00:0a")).contains("lladdr 02:00:00:00:00:0a");
    }

    @Test
    void anAddressNotAnnouncedGetsNoNeighborAdvertisement() {
        var ndisc = network.in(network.b, "ndisc6", "-1", "-r", "1", "-w", "1000", "fd99::201", "b0");
        assertThat(ndisc.output()).doesNotContain("Target link-layer address");
        assertThat(ndisc.exitCode()).isNotZero();
    }

    @Test
    void theSolicitedNodeGroupIsJoinedAndLeftSharedGroupsStayUntilTheLastLeaves() throws Exception {
        String group = "ff02::1:ff00:200";
        assertThat(maddr()).contains(group);
        String sharing = "fd99:1::200"; // same low 24 bits, so the same group
        assertThat(responder.command("join " + sharing)).isEqualTo("ok");
        assertThat(responder.command("leave " + VIP6)).isEqualTo("ok");
        assertThat(maddr()).contains(group);
        assertThat(responder.command("leave " + sharing)).isEqualTo("ok");
        assertThat(maddr()).doesNotContain(group);
        assertThat(responder.command("join " + VIP6)).isEqualTo("ok");
        assertThat(maddr()).contains(group);
    }

    @Test
    void gratuitousArpReplacesAnExistingNeighborEntry() throws Exception {
        TestNetwork.must(
                "ip", "-n", network.b, "neigh", "replace", VIP4, "lladdr", OTHER_MAC, "dev", "b0", "nud", "stale");
        assertThat(neighbor(VIP4)).contains(OTHER_MAC);
        assertThat(responder.command("garp " + VIP4)).isEqualTo("ok sent=true");
        assertThat(eventually(() -> neighbor(VIP4), "lladdr 02:00:00:00:00:0a")).contains("lladdr 02:00:00:00:00:0a");
    }

    @Test
    void unsolicitedAdvertisementReplacesAnExistingNeighborEntry() throws Exception {
        TestNetwork.must(
                "ip", "-n", network.b, "neigh", "replace", VIP6, "lladdr", OTHER_MAC, "dev", "b0", "nud", "stale");
        assertThat(neighbor(VIP6)).contains(OTHER_MAC);
        assertThat(responder.command("garp " + VIP6)).isEqualTo("ok sent=true");
        assertThat(eventually(() -> neighbor(VIP6), "lladdr 02:00:00:00:00:0a")).contains("lladdr 02:00:00:00:00:0a");
    }

    @Test
    void arpProbeFromTheOtherNamespaceSeesTheResponderAndCountsAllReplies() {
        var probe = network.in(network.b, javaCommand("b0", "198.18.99.2", VIP4, "20"));
        assertThat(probe.output()).contains("reply from 02:00:00:00:00:0a").contains("answered 20/20");
        var load = network.in(network.b, javaCommand("b0", "198.18.99.2", VIP4, "5000", "10000"));
        assertThat(load.output()).contains("LoadResult[sent=5000, answered=5000");
    }

    @Test
    void linkInfoInsideTheNamespace() throws Exception {
        assertThat(responder.command("link a0"))
                .contains("name=a0")
                .contains("mac=02:00:00:00:00:0a")
                .contains("up=true")
                .contains("master=Optional.empty")
                .contains("198.18.99.1/24")
                .contains("fd99::1/64");
        assertThat(responder.command("link d0")).contains("master=Optional[br0]");
        assertThat(responder.command("link lo"))
                .contains("index=1")
                .contains("loopback=true")
                .contains("mac=00:00:00:00:00:00");
    }

    @Test
    void countersFollowWhatWasAnswered() throws Exception {
        String before = responder.command("counts");
        network.in(network.b, "arping", "-c", "2", "-w", "3", "-I", "b0", VIP4);
        String after = responder.command("counts");
        assertThat(count(after, "responses") - count(before, "responses")).isGreaterThanOrEqualTo(2);
        assertThat(count(after, "arpDrops")).isZero();
    }

    /** The kernel filter names the announced targets: other ARP never wakes the responder, nor does a withdrawn VIP. */
    @Test
    void requestsForOtherAddressesAreFilteredOutInTheKernel() throws Exception {
        String extra = "198.18.99.202";
        responder.command("counts"); // the kernel's packet statistics restart at each read
        network.in(network.b, "arping", "-c", "2", "-w", "2", "-I", "b0", "198.18.99.1"); // A's own address
        network.in(network.b, "arping", "-c", "2", "-w", "2", "-I", "b0", extra);
        assertThat(count(responder.command("counts"), "arpPackets"))
                .as("requests let through to the responder")
                .isZero();

        assertThat(responder.command("announce " + extra)).isEqualTo("ok");
        var answered = network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", extra);
        assertThat(answered.output()).contains("[02:00:00:00:00:0A]");
        assertThat(count(responder.command("counts"), "arpPackets")).isPositive();

        assertThat(responder.command("withdraw " + extra)).isEqualTo("ok");
        var withdrawn = network.in(network.b, "arping", "-c", "2", "-w", "2", "-I", "b0", extra);
        assertThat(withdrawn.output()).contains("Received 0 response(s)");
        assertThat(count(responder.command("counts"), "arpPackets")).isZero();
    }

    private static String[] javaCommand(String... args) {
        String javaBinary = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                .toString();
        String[] command = new String[5 + args.length];
        command[0] = javaBinary;
        command[1] = "--enable-native-access=ALL-UNNAMED";
        command[2] = "-cp";
        command[3] = ChildJvm.classPath();
        command[4] = ArpProbe.class.getName();
        System.arraycopy(args, 0, command, 5, args.length);
        return command;
    }

    /** A UDP datagram to the discard port, via bash's /dev/udp (no ping on this machine); it stays in B-A. */
    private static void sendDatagramFromB(String ip) {
        network.in(network.b, "bash", "-c", "echo lbk8s > /dev/udp/" + ip + "/9");
    }

    private static long count(String line, String name) {
        for (String word : line.split(" ")) {
            if (word.startsWith(name + "=")) {
                return Long.parseLong(word.substring(name.length() + 1));
            }
        }
        throw new IllegalArgumentException(name + " not in " + line);
    }

    private static String neighbor(String ip) {
        return network.in(network.b, "ip", "neigh", "show", ip, "dev", "b0").output();
    }

    private static String maddr() {
        return network.in(network.a, "ip", "-6", "maddr", "show", "dev", "a0").output();
    }

    /** Polls for up to 3 s, 20 ms apart. */
    private static String eventually(Supplier<String> read, String expected) throws InterruptedException {
        String last = read.get();
        for (int i = 0; i < 150 && !last.contains(expected); i++) {
            Thread.sleep(20);
            last = read.get();
        }
        return last;
    }
}

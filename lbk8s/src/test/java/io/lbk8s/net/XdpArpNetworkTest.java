package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.link.RootRequired;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The responder in namespace A answering ARP in the kernel (XDP on a0), asked by arping from namespace B. Each test
 * builds its own two namespaces, so that a killed responder cannot leave anything behind for the next.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XdpArpNetworkTest {

    static final String VIP = "198.18.99.200";

    TestNetwork network;
    ChildJvm responder;

    @BeforeEach
    void start() throws Exception {
        RootRequired.check();
        network = TestNetwork.create();
        responder = ChildJvm.start(network.a, ResponderChild.class, "a0");
        assertThat(responder.nextLine(20)).startsWith("ready a0").contains("arpInKernel=true");
        assertThat(responder.command("announce " + VIP)).isEqualTo("ok");
    }

    @AfterEach
    void stop() throws Exception {
        ChildJvm.closeThenRemove(responder, network);
    }

    @Test
    void arpingIsAnsweredByTheKernelTheRawSocketNeverSeesTheRequestAndTheAnswersAreCounted() throws Exception {
        assertThat(network.in(network.a, "ip", "link", "show", "a0").output()).contains("xdpgeneric");
        responder.command("counts"); // the socket's statistics restart at each read
        var arping = network.in(network.b, "arping", "-c", "3", "-w", "3", "-I", "b0", VIP);
        assertThat(arping.output()).contains("[02:00:00:00:00:0A]").contains("Received 3 response(s)");
        String counts = responder.command("counts");
        assertThat(count(counts, "arpPackets"))
                .as("requests that reached the raw socket")
                .isZero();
        assertThat(count(counts, "responses")).isEqualTo(3);
    }

    @Test
    void aWithdrawnAddressIsSilentAndTheNodesOwnAddressIsStillTheKernelStacks() throws Exception {
        assertThat(responder.command("withdraw " + VIP)).isEqualTo("ok");
        assertThat(network.in(network.b, "arping", "-c", "2", "-w", "2", "-I", "b0", VIP)
                        .output())
                .contains("Received 0 response(s)");
        assertThat(network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", "198.18.99.1")
                        .output())
                .contains("[02:00:00:00:00:0A]")
                .contains("Received 1 response(s)");
    }

    @Test
    void aKilledResponderLeavesNothingAnsweringInTheKernel() throws Exception {
        assertThat(network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", VIP)
                        .output())
                .contains("Received 1 response(s)");
        responder.kill();
        responder = null;
        assertThat(network.in(network.a, "ip", "link", "show", "a0").output()).doesNotContain("xdp");
        assertThat(network.in(network.b, "arping", "-c", "2", "-w", "2", "-I", "b0", VIP)
                        .output())
                .contains("Received 0 response(s)");
    }

    @Test
    void whereAnotherXdpProgramHoldsTheInterfaceTheRawSocketAnswersAndSaysWhy() throws Exception {
        ChildJvm second = ChildJvm.start(network.a, ResponderChild.class, "a0");
        try {
            assertThat(second.nextLine(20))
                    .startsWith("ready a0")
                    .contains("arpInKernel=false")
                    .contains("another XDP program is attached there");
            assertThat(responder.command("withdraw " + VIP)).isEqualTo("ok");
            assertThat(second.command("announce " + VIP)).isEqualTo("ok");
            assertThat(network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", VIP)
                            .output())
                    .contains("[02:00:00:00:00:0A]")
                    .contains("Received 1 response(s)");
            assertThat(count(second.command("counts"), "responses")).isEqualTo(1);
        } finally {
            second.close();
        }
    }

    @Test
    void withoutCapBpfAndCapNetAdminTheRawSocketAnswersAndSaysWhatIsMissing() throws Exception {
        assertThat(responder.command("withdraw " + VIP)).isEqualTo("ok");
        String dropped = "-bpf,-net_admin,-sys_admin"; // CAP_SYS_ADMIN would also allow BPF
        ChildJvm limited = ChildJvm.start(
                network.a,
                List.of("/usr/bin/setpriv", "--bounding-set", dropped, "--inh-caps", dropped),
                ResponderChild.class,
                "a0");
        try {
            assertThat(limited.nextLine(20))
                    .startsWith("ready a0")
                    .contains("arpInKernel=false")
                    .contains("Operation not permitted (EPERM); in-kernel ARP answers need CAP_BPF and CAP_NET_ADMIN");
            assertThat(limited.command("announce " + VIP)).isEqualTo("ok");
            assertThat(network.in(network.b, "arping", "-c", "1", "-w", "2", "-I", "b0", VIP)
                            .output())
                    .contains("[02:00:00:00:00:0A]")
                    .contains("Received 1 response(s)");
        } finally {
            limited.close();
        }
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

package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Links.state inside namespace A (in a child JVM, so that it sees A's interfaces): a carrier loss, which the speaker
 * must notice as well as {@code ip link set down}, is the peer end of the veth going down.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinksNetworkTest {

    TestNetwork network;
    ChildJvm child;

    @BeforeEach
    void start() throws Exception {
        RootRequired.check();
        network = TestNetwork.create();
        child = ChildJvm.start(network.a, ResponderChild.class, "a0", "raw-socket");
        assertThat(child.nextLine(20)).startsWith("ready a0");
    }

    @AfterEach
    void stop() throws Exception {
        ChildJvm.closeThenRemove(child, network);
    }

    @Test
    void aCarrierLossClearsRunningWhileTheLinkStaysUp() throws Exception {
        assertThat(child.command("state a0")).isEqualTo("ok LinkState[up=true, running=true]");

        TestNetwork.must("ip", "-n", network.b, "link", "set", "b0", "down");
        assertThat(child.command("state a0")).isEqualTo("ok LinkState[up=true, running=false]");
        assertThat(child.command("link a0")).contains("up=true, running=false");

        TestNetwork.must("ip", "-n", network.b, "link", "set", "b0", "up");
        assertThat(child.command("state a0")).isEqualTo("ok LinkState[up=true, running=true]");
        assertThat(child.command("link a0")).contains("up=true, running=true");
    }

    @Test
    void aLinkSetDownIsNeitherUpNorRunning() throws Exception {
        TestNetwork.must("ip", "-n", network.a, "link", "set", "a0", "down");
        assertThat(child.command("state a0")).isEqualTo("ok LinkState[up=false, running=false]");
    }

    @Test
    void anInterfaceThatWasDeletedHasNoState() throws Exception {
        assertThat(child.command("state d0")).isEqualTo("ok LinkState[up=false, running=false]");
        TestNetwork.must("ip", "-n", network.a, "link", "del", "d0");
        assertThat(child.command("state d0")).isEqualTo("ok absent");
    }
}

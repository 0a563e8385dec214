package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.link.RootRequired;
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
        assertThat(stateWithin("a0", "ok LinkState[up=true, running=false]"))
                .isEqualTo("ok LinkState[up=true, running=false]");
        assertThat(child.command("link a0")).contains("up=true, running=false");

        TestNetwork.must("ip", "-n", network.b, "link", "set", "b0", "up");
        assertThat(stateWithin("a0", "ok LinkState[up=true, running=true]"))
                .isEqualTo("ok LinkState[up=true, running=true]");
        assertThat(child.command("link a0")).contains("up=true, running=true");
    }

    /**
     * The kernel publishes a carrier change (the operstate behind RUNNING) from its link-watch work, up to a second
     * after the peer went down, so the state is asked again until it is the expected one or 3 s have passed.
     */
    private String stateWithin(String link, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        String state = child.command("state " + link);
        while (!state.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            state = child.command("state " + link);
        }
        return state;
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

package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.FAILOVER;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.TestNode;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The speakers with {@code --bgp-listen-port=0}, which only connect out, in {@link BgpRouterOutageIT}'s scenario with
 * the default connectTime: FRR's link down 17 s, then up. The sessions come back only at each speaker's next SYN
 * retransmission, about 15 s after the link: what the listening socket saves.
 */
class BgpConnectOnlyIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withBfd("bgp-connect-only").withSpeakerArgs("--bgp-listen-port=0");

    @Test
    void withoutTheListeningSocketTheSessionsWaitForTheSpeakersNextSyn() throws Exception {
        BgpRouter upstream = bgp.startRouter(RouterKind.FRR, bgp.ipv4Peers(true), false);
        BgpSandbox.awaitBfdUp(upstream);
        InetAddress ip = bgp.loadBalancerOverEveryNode("connect-only");
        bgp.awaitSessionStates(true, SOON);
        for (TestNode node : bgp.network().nodes()) {
            assertThat(bgp.cluster().speaker(node).log()).doesNotContain("BGP: listening on");
        }

        bgp.router().linkDown();
        bgp.awaitSessionStates(false, FAILOVER);
        Thread.sleep(Duration.ofSeconds(17));

        long upAt = System.nanoTime();
        bgp.router().linkUp();
        bgp.awaitEstablishedWithEveryNode(upstream);
        bgp.awaitSessionStates(true, SOON);
        bgp.assertRoutedOverEveryNodeAndAnswered(upstream, ip);
        Duration back = Duration.ofNanos(System.nanoTime() - upAt);
        System.out.println("BgpConnectOnlyIT: FRR's link down 17 s, connectTime 120 s (the default), speakers"
                + " connect-only: every session Established, the route over 3 nodes and answered " + back.toMillis()
                + " ms after the link came up");
        assertThat(back)
                .as("the speakers' next SYN, several seconds after the link came back")
                .isGreaterThan(Duration.ofSeconds(8));
    }
}

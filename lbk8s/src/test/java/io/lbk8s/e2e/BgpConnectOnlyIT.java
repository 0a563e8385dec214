package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.testkit.net.TestNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The speakers with {@code --bgp-listen-port=0}, which only connect out, in {@link BgpRouterOutageIT}'s scenario of
 * FRR's bgpd gone 35 s: the sessions come back only at each speaker's next attempt, about 28 s after bgpd started
 * again, where the listening socket takes FRR's own connections within seconds.
 */
class BgpConnectOnlyIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.withoutBfd("bgp-connect-only").withSpeakerArgs("--bgp-listen-port=0");

    @Test
    void withoutTheListeningSocketFrrsBgpdStartedAgainWaitsForTheSpeakersNextAttempt() throws Exception {
        for (TestNode node : bgp.network().nodes()) {
            assertThat(bgp.cluster().speaker(node).log()).doesNotContain("BGP: listening on");
        }
        Duration back = BgpRouterOutageIT.bgpdGoneAndBack(bgp, "connect-only", () -> {});
        System.out.println("BgpConnectOnlyIT: FRR's bgpd killed, started again "
                + BgpRouterOutageIT.BGPD_GONE.toSeconds() + " s later, speakers connect-only: every session"
                + " Established, the route over 3 nodes and answered " + back.toMillis() + " ms after it started");
        assertThat(back)
                .as("the speakers' next attempt, 63 s after their sessions went down")
                .isGreaterThan(Duration.ofSeconds(15));
    }
}

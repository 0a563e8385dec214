package io.lbk8s.e2e;

import static io.lbk8s.e2e.BgpSandbox.CURL;
import static io.lbk8s.e2e.BgpSandbox.INSTALLED_POOL;
import static io.lbk8s.e2e.BgpSandbox.ROUTER_AS;
import static io.lbk8s.e2e.BgpSandbox.SOON;
import static io.lbk8s.e2e.BgpSandbox.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.cli.CliRun;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.RibPath;
import io.lbk8s.testkit.net.RouterKind;
import io.lbk8s.testkit.net.TestNode;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * BGP mode set up the way the install guide says: {@code lbk8s install --addresses RANGE --bgp-peer
 * ROUTER,asn=...,my-asn=...,name=router} against the cluster, and nothing else written by hand. FRR is the upstream
 * router; every check is made on the router, from the remote client behind it, or with {@code lbk8s status}.
 */
class InstallBgpIT {
    @RegisterExtension
    static final BgpSandbox bgp = BgpSandbox.configuredByInstall("install-bgp");

    @Test
    void theRouterGivenToInstallGetsTheServiceFromEveryNodeAndTheRemoteClientIsAnswered() {
        BgpRouter frr = bgp.startRouter(RouterKind.FRR, bgp.ipv4Peers(false), false);
        InetAddress ip = bgp.loadBalancer("web", "Cluster", true, INSTALLED_POOL, "IPv4");

        assertThat(frr.awaitRoutes(prefix(ip), p -> p.size() == 3, "from all three nodes", SOON))
                .extracting(RibPath::nextHop)
                .containsExactlyInAnyOrderElementsOf(bgp.nodeAddresses());
        bgp.awaitFibOverEveryNode(ip, "over 3");
        assertThat(bgp.router().remoteClient().curl(ip, CURL))
                .hasValueSatisfying(body -> assertThat(body).startsWith("node-"));

        bgp.awaitSessionStates(true, SOON);
        CliRun status = CliRun.of(bgp.cluster().kubeconfig, "status");
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .contains("BGP peers: router (" + BgpSandbox.text(bgp.router().ipv4()) + ", AS " + ROUTER_AS + ")\n");
        for (TestNode node : bgp.network().nodes()) {
            assertThat(status.out()).containsPattern("(?m)^" + node.name() + " +router +Established +N/A$");
        }
    }
}

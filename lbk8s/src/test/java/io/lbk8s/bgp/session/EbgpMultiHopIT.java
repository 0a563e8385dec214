package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.net.ChildJvm;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.UpstreamRouter;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TTL a session's connector sets, between namespaces: node-1's connector (in a JVM inside the node) reaches the
 * upstream router, one hop away on the LAN, with TTL 1, and the remote client behind it, two hops away, with the
 * multi-hop TTL (ebgpMultiHop) and with the default, but not with TTL 1: the router drops that SYN and its ICMP time
 * exceeded fails the connection at once. Each listener answers with its own name. Run under {@code flock /work/netns.lock}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EbgpMultiHopIT {
    private static final int PORT = 1790;

    static TestNetwork network;
    static UpstreamRouter router;
    static ChildJvm node;

    @BeforeAll
    static void start() throws Exception {
        network = TestNetwork.create(1);
        router = network.router();
        listen(router.namespace(), "router");
        listen(router.remoteClient().namespace(), "remote");
        node = ChildJvm.start(network.node(1).namespace(), ConnectChild.class);
        assertThat(node.nextLine(30)).isEqualTo("ready");
    }

    /** Answers every connection, IPv4 or IPv6, with {@code name}. */
    private static void listen(String namespace, String name) {
        network.start(
                namespace,
                List.of("/usr/bin/socat", "TCP6-LISTEN:" + PORT + ",ipv6only=0,reuseaddr,fork", "SYSTEM:echo " + name),
                network.logDirectory().resolve("listen-" + name + ".log"));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (node != null) {
                node.close();
            }
        } finally {
            if (network != null) {
                network.close();
            }
        }
    }

    @Test
    void ttlOneReachesTheDirectlyConnectedRouter() throws Exception {
        assertThat(connect(router.ipv4(), "1")).isEqualTo("ok router");
        assertThat(connect(router.ipv6(), "1")).isEqualTo("ok router");
    }

    /** The option really reaches the kernel: with TTL 1 the router drops the SYN for two hops away. */
    @Test
    void ttlOneIsRefusedTwoHopsAway() throws Exception {
        InetAddress remote = router.remoteClient().ipv4();
        assertThat(connect(remote, "1")).isEqualTo("error no route to host " + remote.getHostAddress());
        assertThat(connect(router.remoteClient().ipv6(), "1")).startsWith("error no route to host");
    }

    @Test
    void theMultiHopTtlAndTheDefaultReachTwoHopsAway() throws Exception {
        assertThat(connect(router.remoteClient().ipv4(), "255")).isEqualTo("ok remote");
        assertThat(connect(router.remoteClient().ipv6(), "255")).isEqualTo("ok remote");
        assertThat(connect(router.remoteClient().ipv4(), "-")).as("iBGP").isEqualTo("ok remote");
    }

    private static String connect(InetAddress address, String ttl) throws InterruptedException {
        return node.command("connect " + address.getHostAddress() + " " + PORT + " " + ttl);
    }
}

package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.net.ChildJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our sessions ({@link SessionChild}, in a JVM inside the test's namespace) against real GoBGP 3.10, BIRD 2.0.12 and
 * FRR 8.4 in the same namespace: what each router's own CLI shows. Run under {@code flock /work/netns.lock}.
 */
class SessionsRoutersIT {
    private static final String NAMESPACE =
            "lbk8s-bgpit-" + ProcessHandle.current().pid();
    private static final String V4 = "198.51.100.10/32";
    private static final String V6 = "2001:db8::10/128";

    @BeforeAll
    static void namespace() throws Exception {
        ip("netns", "add", NAMESPACE);
        ip("-n", NAMESPACE, "link", "set", "lo", "up");
        for (String address : List.of(NamespaceRouter.NODE, "10.255.0.12", "10.255.0.13", "10.255.0.14")) {
            ip("-n", NAMESPACE, "addr", "add", address + "/32", "dev", "lo");
        }
        ip("-n", NAMESPACE, "addr", "add", NamespaceRouter.NODE_V6 + "/128", "dev", "lo", "nodad");
    }

    @AfterAll
    static void removeNamespace() throws Exception {
        ip("netns", "del", NAMESPACE);
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(
                    command + ": " + new String(process.getInputStream().readAllBytes()));
        }
    }

    interface RouterFactory {
        NamespaceRouter make(String namespace) throws Exception;
    }

    static Stream<Arguments> routers() {
        return Stream.of(
                Arguments.of("GoBGP", (RouterFactory) NamespaceRouter.Gobgp::new),
                Arguments.of("BIRD", (RouterFactory) NamespaceRouter.Bird::new),
                Arguments.of("FRR", (RouterFactory) NamespaceRouter.Frr::new));
    }

    private static ChildJvm session(NamespaceRouter router, long myAsn) throws Exception {
        return session(router, myAsn, "");
    }

    private static ChildJvm session(NamespaceRouter router, long myAsn, String gracefulRestart) throws Exception {
        ChildJvm child = ChildJvm.start(
                NAMESPACE,
                SessionChild.class,
                router.address(),
                String.valueOf(router.port),
                String.valueOf(myAsn),
                String.valueOf(NamespaceRouter.ROUTER_ASN),
                NamespaceRouter.NODE,
                gracefulRestart);
        assertThat(child.nextLine(30)).isEqualTo("ready");
        return child;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routers")
    void routesAppearLeaveAndGoAtOnceOnClose(String name, RouterFactory factory) throws Exception {
        try (NamespaceRouter router = factory.make(NAMESPACE)) {
            router.start();
            try (ChildJvm node = session(router, NamespaceRouter.NODE_ASN)) {
                assertThat(node.command("advertise " + V4 + " " + V6)).isEqualTo("ok");
                awaitRib(router, false, V4, true, node);
                awaitRib(router, true, V6, true, node);
                assertThat(node.command("status")).startsWith("ok ESTABLISHED advertised=2");

                assertThat(node.command("advertise " + V6)).isEqualTo("ok");
                awaitRib(router, false, V4, false, node);
                assertThat(node.command("status")).startsWith("ok ESTABLISHED advertised=1");

                // the hold time is 90 s: gone within 3 s means the router acted on our Cease
                assertThat(node.command("close")).isEqualTo("ok");
                awaitRib(router, true, V6, false, Duration.ofSeconds(3), node);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routers")
    void withGracefulRestartTheRouterKeepsOurRoutesAfterClose(String name, RouterFactory factory) throws Exception {
        try (NamespaceRouter router = factory.make(NAMESPACE)) {
            router.start();
            try (ChildJvm node = session(router, NamespaceRouter.NODE_ASN, "graceful-restart")) {
                assertThat(node.command("advertise " + V4)).isEqualTo("ok");
                awaitRib(router, false, V4, true, node);

                assertThat(node.command("close")).isEqualTo("ok");
                Thread.sleep(3000);

                // stale, but still forwarded to us for the restart time (120 s), as a restarting speaker wants
                assertThat(router.rib(false))
                        .as(name + "'s table 3 s after close")
                        .contains(V4);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routers")
    void aRouterThatExpectsAnotherAsSaysSoInLastError(String name, RouterFactory factory) throws Exception {
        try (NamespaceRouter router = factory.make(NAMESPACE)) {
            router.start();
            try (ChildJvm node = session(router, 64600)) {
                // the first attempts may find the router not yet listening
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> node.command("status").contains("NOTIFICATION"));
                String status = node.command("status");
                System.out.println(name + ": " + status); // the sentence a user reads, for the report
                assertThat(status)
                        .contains("error=peer " + router.address()
                                + " sent NOTIFICATION OPEN Message Error / Bad Peer AS")
                        .contains("it does not accept our AS 64600");
            }
        }
    }

    private static void awaitRib(NamespaceRouter router, boolean ipv6, String prefix, boolean present, ChildJvm node)
            throws Exception {
        awaitRib(router, ipv6, prefix, present, Duration.ofSeconds(20), node);
    }

    /** Fails with what the session and the router say, so that a failure explains itself. */
    private static void awaitRib(
            NamespaceRouter router, boolean ipv6, String prefix, boolean present, Duration within, ChildJvm node)
            throws Exception {
        try {
            await().atMost(within)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> router.rib(ipv6).contains(prefix) == present);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(router.name() + (present ? " does not show " : " still shows ") + prefix
                    + " after " + within.toSeconds() + " s; session: " + node.command("status") + " " + node.drain()
                    + "\nrouter's table: " + router.rib(ipv6) + "\nrouter's log: " + router.log());
        }
    }
}

package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Community;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Our sessions against real GoBGP 3.10, BIRD 2.0.12 and FRR 8.4 on loopback: what each router's own CLI shows. */
class SessionsRoutersIT {
    private static final Route V4 = new Route(
            IpPrefix.parse("198.51.100.10/32").orElseThrow(),
            OptionalLong.empty(),
            List.of(new Community.Standard(64512, 100)));
    private static final Route V6 = Route.of(IpPrefix.parse("2001:db8::10/128").orElseThrow());

    static Stream<Arguments> routers() {
        return Stream.of(
                Arguments.of("GoBGP", (RouterFactory) LoopbackRouter.Gobgp::new),
                Arguments.of("BIRD", (RouterFactory) LoopbackRouter.Bird::new),
                Arguments.of("FRR", (RouterFactory) LoopbackRouter.Frr::new));
    }

    interface RouterFactory {
        LoopbackRouter make() throws Exception;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routers")
    void routesAppearLeaveAndGoAtOnceOnClose(String name, RouterFactory factory) throws Exception {
        try (LoopbackRouter router = factory.make()) {
            router.start();
            List<SessionStatus> seen = new CopyOnWriteArrayList<>();
            Sessions sessions = Sessions.start(new PlainConnector(), Clock.systemUTC(), seen::add);
            try {
                sessions.configure(List.of(spec(router, NODE_ASN_OK)));
                sessions.advertise("router", Set.of(V4, V6));
                awaitRib(router, false, "198.51.100.10/32", true);
                if (!(router instanceof LoopbackRouter.Bird)) {
                    // BIRD takes the route too but hides it: next hop ::1 does not resolve in its empty IPv6 table
                    awaitRib(router, true, "2001:db8::10/128", true);
                }
                assertThat(sessions.statuses())
                        .singleElement()
                        .satisfies(s -> assertThat(s.state()).isEqualTo(SessionState.ESTABLISHED));
                assertThat(seen)
                        .extracting(SessionStatus::state)
                        .contains(SessionState.OPEN_SENT, SessionState.ESTABLISHED);

                sessions.advertise("router", Set.of(V6));
                awaitRib(router, false, "198.51.100.10/32", false);
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> sessions.statuses().getFirst().advertised() == 1);
            } finally {
                sessions.close();
            }
            // the hold time is 90 s: gone within 3 s means the router acted on our Cease
            if (!(router instanceof LoopbackRouter.Bird)) {
                awaitRib(router, true, "2001:db8::10/128", false, Duration.ofSeconds(3));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routers")
    void aRouterThatExpectsAnotherAsSaysSoInLastError(String name, RouterFactory factory) throws Exception {
        try (LoopbackRouter router = factory.make()) {
            router.start();
            try (Sessions sessions = Sessions.start(new PlainConnector(), Clock.systemUTC(), s -> {})) {
                sessions.configure(List.of(spec(router, 64600)));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> sessions.statuses().getFirst().lastError().isPresent());
                assertThat(sessions.statuses().getFirst().lastError().orElseThrow())
                        .startsWith("peer " + router.address() + " sent NOTIFICATION OPEN Message Error / Bad Peer AS")
                        .contains("64600");
            }
        }
    }

    private static final long NODE_ASN_OK = LoopbackRouter.NODE_ASN;

    private static PeerSpec spec(LoopbackRouter router, long myAsn) {
        return new PeerSpec(
                "router",
                IpAddress.parse(router.address()).orElseThrow(),
                router.port,
                myAsn,
                OptionalLong.of(LoopbackRouter.ROUTER_ASN),
                Optional.empty(),
                IpAddress.parse(LoopbackRouter.NODE),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(1),
                Optional.empty(),
                false,
                false,
                true,
                Optional.empty());
    }

    private static void awaitRib(LoopbackRouter router, boolean ipv6, String prefix, boolean present) {
        awaitRib(router, ipv6, prefix, present, Duration.ofSeconds(20));
    }

    private static void awaitRib(LoopbackRouter router, boolean ipv6, String prefix, boolean present, Duration within) {
        await().alias(router.name() + (present ? " shows " : " drops ") + prefix)
                .atMost(within)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> router.rib(ipv6).contains(prefix) == present);
    }
}

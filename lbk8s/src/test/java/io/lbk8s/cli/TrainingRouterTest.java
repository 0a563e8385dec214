package io.lbk8s.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.lbk8s.bgp.session.Md5Connector;
import io.lbk8s.bgp.session.Sessions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The AOT training run's router: the speaker's real sessions reach Established with it and their routes arrive. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TrainingRouterTest {

    @Test
    void aSpeakersSessionComesUpWithItAndItsRoutesArrive() throws Exception {
        Set<SessionState> states = ConcurrentHashMap.newKeySet();
        try (TrainingRouter router = TrainingRouter.start()) {
            Sessions sessions = Sessions.start(new Md5Connector(), Clock.systemUTC(), s -> states.add(s.state()));
            try {
                PeerSpec spec = spec(router.port());
                sessions.configure(List.of(spec));
                sessions.advertise(
                        spec.name(),
                        Set.of(
                                Route.of(IpPrefix.parse("198.51.100.200/32").orElseThrow()),
                                Route.of(IpPrefix.parse("198.51.100.201/32").orElseThrow())));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (router.announced().size() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(router.announced()).containsExactlyInAnyOrder("198.51.100.200/32", "198.51.100.201/32");
                assertThat(states).contains(SessionState.ESTABLISHED);
                assertThat(sessions.statuses())
                        .extracting(SessionStatus::state)
                        .containsExactly(SessionState.ESTABLISHED);
            } finally {
                sessions.close();
            }
        }
    }

    /** As the speaker makes it of the training run's BGPPeer: the router on loopback, no router ID of its own. */
    private static PeerSpec spec(int port) {
        return new PeerSpec(
                "training",
                IpAddress.parse("127.0.0.1").orElseThrow(),
                port,
                64512,
                OptionalLong.of(TrainingRouter.ASN),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(2),
                Optional.empty(),
                false,
                false,
                false,
                Optional.empty());
    }
}

package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the Prometheus endpoint shows of the BGP sessions' families that RFC 7606's AFI/SAFI disable took off. */
class SpeakerBgpMetricsTest {

    @Test
    void aDisabledFamilyShowsWhileTheSessionStatusHasIt() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SpeakerMetrics metrics = new SpeakerMetrics(registry, "node-1");

        metrics.bgpSessions(List.of(established(Set.of(Family.IPV6_UNICAST))));
        assertThat(registry.scrape())
                .contains("lbk8s_bgp_families_disabled{family=\"ipv6-unicast\",peer=\"tor\"} 1.0")
                .contains("lbk8s_bgp_session_up{peer=\"tor\"} 1.0");

        metrics.bgpSessions(List.of(established(Set.of())));
        assertThat(registry.scrape())
                .doesNotContain("lbk8s_bgp_families_disabled{")
                .contains("lbk8s_bgp_session_up{peer=\"tor\"} 1.0");
    }

    private static SessionStatus established(Set<Family> disabled) {
        return new SessionStatus(
                "tor",
                IpAddress.parse("10.0.0.254").orElseThrow(),
                SessionState.ESTABLISHED,
                Instant.now(),
                Optional.empty(),
                1,
                Optional.empty(),
                disabled);
    }
}

package io.lbk8s.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The metric-name check that holds the alerts and the dashboard to what /metrics exports. */
class ScrapedMetricsTest {
    static final ScrapedMetrics SCRAPE = ScrapedMetrics.parse("""
            # HELP lbk8s_peers_peer_state 1 for each peer speaker and what the detector says of it
            # TYPE lbk8s_peers_peer_state gauge
            lbk8s_peers_peer_state{peer="node-2",state="alive"} 1.0
            lbk8s_peers_peer_state{peer="node-3",state="dead"} 1.0
            lbk8s_controller_leader 1.0
            lbk8s_service_address{ip="10.5.0.200",pool="default",service="default/web \\"a\\""} 1.0
            lbk8s_peers_failure_silence_seconds_count 0
            """);

    @Test
    void readsNamesLabelsAndEscapedValues() {
        assertThat(SCRAPE.series())
                .containsOnlyKeys(
                        "lbk8s_peers_peer_state",
                        "lbk8s_controller_leader",
                        "lbk8s_service_address",
                        "lbk8s_peers_failure_silence_seconds_count");
        assertThat(SCRAPE.values("lbk8s_peers_peer_state", "state")).containsExactly("alive", "dead");
        assertThat(SCRAPE.values("lbk8s_service_address", "service")).containsExactly("default/web \"a\"");
    }

    @Test
    void findsTheSelectorsOfAnExpression() {
        PromQl.Parsed parsed = PromQl.parse(
                "sum(rate(lbk8s_x_sum[$__rate_interval])) / max by (ip, service) (lbk8s_y{a=\"b\", c=~'d|e'} offset 5m"
                        + " and on (instance) lbk8s_controller_leader == 1) >= 0.9 unless on(ip) group_left lbk8s_z");
        assertThat(parsed.selectors())
                .extracting(PromQl.Selector::metric)
                .containsExactly("lbk8s_x_sum", "lbk8s_y", "lbk8s_controller_leader", "lbk8s_z");
        assertThat(parsed.selectors().get(1).matchers())
                .containsExactly(new PromQl.Matcher("a", "=", "b"), new PromQl.Matcher("c", "=~", "d|e"));
        assertThat(parsed.groupingLabels()).containsExactlyInAnyOrder("ip", "service", "instance");
    }

    @Test
    void saysWhatAnExpressionAsksThatTheScrapeDoesNotHave() {
        assertThat(SCRAPE.problems(
                        "ok",
                        "count by (peer) (lbk8s_peers_peer_state{state=~\"alive|dead\"} == 1 and on (instance)"
                                + " lbk8s_controller_leader == 1)"))
                .isEmpty();
        assertThat(SCRAPE.problems("renamed", "lbk8s_peer_state == 1"))
                .containsExactly("renamed: no metric lbk8s_peer_state in /metrics");
        assertThat(SCRAPE.problems("label", "max by (address) (lbk8s_service_address{pool=\"default\", node=\"x\"})"))
                .containsExactly(
                        "label: lbk8s_service_address has no label node (it has [ip, pool, service])",
                        "label: groups by address, a label of none of its metrics (they have [instance, ip, job, pool,"
                                + " service])");
        assertThat(SCRAPE.problems("value", "lbk8s_peers_peer_state{state=~\"not_heard|dead\"}"))
                .containsExactly("value: lbk8s_peers_peer_state{state} was never not_heard (it was [alive, dead])");
        assertThat(SCRAPE.problems("nothing", "vector(1)")).isEqualTo(List.of("nothing: selects no metric: vector(1)"));
    }
}

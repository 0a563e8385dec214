package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.lbk8s.metrics.ObservabilityFiles;
import io.lbk8s.metrics.PromQl;
import io.lbk8s.metrics.ScrapedMetrics;
import io.lbk8s.speaker.NodeState;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The alerting rules, their promtool tests and the Grafana dashboard ask only for what lbk8s's own /metrics export:
 * the sandbox runs the controller and three speakers, a client asks for the Service's address, a speaker the others
 * never hear joins, the announcing speaker is killed (its Pod then marked NotReady) and another takes over; then the
 * controller's and the surviving speakers' /metrics are read, and every metric, label and label value the rules and
 * the dashboard select, and every input series of the promtool tests, must be among them; and every lbk8s metric
 * they show must be in docs/observability.md. A renamed metric or label fails here.
 */
class ObservabilityIT {
    static final Duration SOON = Duration.ofSeconds(30);
    static final String UNHEARD = "node-unheard";
    /** Labels whose values are the code's own words (enums): the promtool tests may use only those seen. */
    static final Set<String> ENUMERATED = Set.of("state", "reason", "how");

    @RegisterExtension
    static final WebSandbox web = new WebSandbox("observability");

    @Test
    void theAlertsTheirTestsAndTheDashboardUseOnlyWhatMetricsExports() throws IOException {
        Sandbox cluster = web.cluster();
        TestNode leader = cluster.awaitServingNode("web", web.ip(), SOON);
        addSpeakerNobodyHears(cluster);
        cluster.speaker(leader).kill();
        assertThat(cluster.speaker(leader).waitFor(Duration.ofSeconds(10))).isPresent();
        // the survivors' detectors notice the silence and one takes the address; the kubelet marks the Pod not ready
        // only later (its readiness probe fails after seconds), so the test does that after the takeover
        TestNode next = awaitServedByAnother(cluster, leader);
        cluster.setSpeakerPodReady(leader, false);
        assertThat(web.client().arping(web.ip(), Duration.ofSeconds(2))).hasValue(next.mac());

        List<TestNode> alive =
                cluster.network.nodes().stream().filter(n -> !n.equals(leader)).toList();
        String[] scraped = {""};
        Sandbox.poll(
                "the surviving speakers to show the announcement, the answers, the dead and the unheard", SOON, () -> {
                    scraped[0] = scrape(cluster, alive);
                    return scraped[0].contains("lbk8s_speaker_announced{")
                            && scraped[0].contains("lbk8s_layer2_responses_sent_total{")
                            && scraped[0].contains("state=\"dead\"")
                            && scraped[0].contains("state=\"not-heard\"")
                            && scraped[0].contains("lbk8s_service_address{");
                });
        String text = scraped[0];
        // the survivor that took the dead node's address timed its takeover
        assertThat(text.lines()
                        .filter(l -> l.startsWith("lbk8s_speaker_failover_takeover_seconds_count"))
                        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                        .sum())
                .as("failover takeovers timed by the surviving speakers")
                .isGreaterThanOrEqualTo(1);
        Files.writeString(cluster.logs.resolve("metrics.txt"), text); // for a person to read
        ScrapedMetrics metrics = ScrapedMetrics.parse(text);

        List<String> problems = new ArrayList<>();
        ObservabilityFiles.alerts().forEach((alert, expr) -> problems.addAll(metrics.problems("alert " + alert, expr)));
        ObservabilityFiles.dashboardQueries()
                .forEach((panel, expr) -> problems.addAll(metrics.problems("dashboard panel " + panel, expr)));
        ObservabilityFiles.testSeries().forEach(series -> problems.addAll(seriesProblems(metrics, series)));
        assertThat(problems)
                .as("what /metrics does not export (it is in " + cluster.logs + "/metrics.txt)")
                .isEmpty();
        assertThat(ObservabilityFiles.dashboardQueries()).hasSizeGreaterThan(20);

        // and the metrics reference documents every metric /metrics showed
        String reference = Files.readString(Path.of("..", "docs", "observability.md"));
        Set<String> undocumented = text.lines()
                .filter(l -> l.startsWith("# TYPE lbk8s_"))
                .map(l -> l.split(" ")[2])
                .map(name -> name.replaceAll("_max$", ""))
                .filter(name -> !reference.contains("`" + name + "`") && !reference.contains("`" + name + "_total`"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(undocumented).as("metrics not in docs/observability.md").isEmpty();
    }

    /** A series of the promtool tests: a metric seen, with the labels it had (and target labels), known values. */
    static List<String> seriesProblems(ScrapedMetrics scraped, String series) {
        PromQl.Selector s = PromQl.parse(series).selectors().getFirst();
        String where = "promtool test series " + series;
        if (!scraped.series().containsKey(s.metric())) {
            return List.of(where + ": no metric " + s.metric() + " in /metrics");
        }
        List<String> problems = new ArrayList<>();
        Set<String> labels = s.matchers().stream()
                .map(PromQl.Matcher::label)
                .filter(l -> !ScrapedMetrics.TARGET_LABELS.contains(l))
                .collect(Collectors.toCollection(TreeSet::new));
        if (!labels.equals(scraped.labelNames(s.metric()))) {
            problems.add(where + ": labels " + labels + ", /metrics has " + scraped.labelNames(s.metric()));
        }
        for (PromQl.Matcher m : s.matchers()) {
            if (ENUMERATED.contains(m.label())
                    && !scraped.values(s.metric(), m.label()).contains(m.value())) {
                problems.add(where + ": " + m.label() + " was never " + m.value() + " (it was "
                        + scraped.values(s.metric(), m.label()) + ")");
            }
        }
        return problems;
    }

    static String scrape(Sandbox cluster, List<TestNode> speakers) {
        StringBuilder text = new StringBuilder();
        List<Optional<String>> pages = new ArrayList<>();
        pages.add(cluster.controllerMetrics());
        speakers.forEach(n -> pages.add(cluster.metrics(n)));
        for (Optional<String> page : pages) {
            page.filter(p -> p.startsWith("200 "))
                    .ifPresent(p -> text.append(p.substring(4)).append('\n'));
        }
        return text.toString();
    }

    /**
     * A Node with a Ready speaker Pod whose address no namespace has (TEST-NET-1, unrouted): the other speakers'
     * detectors never hear it. Excluded from announcing, so that the Service's address stays with nodes that answer.
     */
    static void addSpeakerNobodyHears(Sandbox cluster) {
        var node = cluster.client
                .nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(UNHEARD)
                        .withLabels(Map.of(NodeState.EXCLUDE_LABEL, "", "kubernetes.io/hostname", UNHEARD))
                        .endMetadata()
                        .build())
                .create();
        node.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("192.0.2.1")
                .endAddress()
                .build());
        cluster.client.nodes().resource(node).updateStatus();
        Pod pod = cluster.client
                .pods()
                .inNamespace(Sandbox.NAMESPACE)
                .resource(Sandbox.speakerPod(UNHEARD))
                .create();
        pod.setStatus(new PodStatusBuilder()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .build());
        cluster.client.pods().inNamespace(Sandbox.NAMESPACE).resource(pod).updateStatus();
    }

    static TestNode awaitServedByAnother(Sandbox cluster, TestNode gone) {
        TestNode[] next = new TestNode[1];
        Sandbox.poll("another node to announce the address and serve the client", SOON, () -> {
            Optional<String> named = cluster.announcingNode("default", "web");
            if (named.isEmpty() || named.get().equals(gone.name())) {
                return false;
            }
            next[0] = cluster.nodeNamed(named.get());
            return web.client().curl(web.ip(), Duration.ofMillis(500)).equals(Optional.of(next[0].backendBody()));
        });
        return next[0];
    }
}

package io.lbk8s.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The alerting rules, their promtool tests and the Grafana dashboard, read as the checks need them: each PromQL
 * expression with where it is, and the test's input series.
 */
public final class ObservabilityFiles {
    private ObservabilityFiles() {}

    public static final Path RULES = Path.of("..", "charts", "lbk8s", "files", "prometheus-rules.yaml");
    public static final Path DASHBOARD = Path.of("..", "charts", "lbk8s", "files", "grafana-dashboard.json");
    public static final Path RULES_TEST =
            Path.of("src", "test", "resources", "prometheus", "prometheus-rules-test.yaml");

    /** Alert name to its expression. */
    @SuppressWarnings("unchecked")
    public static Map<String, String> alerts() {
        Map<String, String> alerts = new LinkedHashMap<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) read(RULES).get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                alerts.put((String) rule.get("alert"), (String) rule.get("expr"));
            }
        }
        return alerts;
    }

    /** "panel title #refId" to its query, through rows. */
    @SuppressWarnings("unchecked")
    public static Map<String, String> dashboardQueries() {
        Map<String, Object> dashboard;
        try {
            dashboard = JsonMapper.builder().build().readValue(Files.readString(DASHBOARD), LinkedHashMap.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> queries = new LinkedHashMap<>();
        addQueries((List<Map<String, Object>>) dashboard.get("panels"), queries);
        return queries;
    }

    @SuppressWarnings("unchecked")
    private static void addQueries(List<Map<String, Object>> panels, Map<String, String> queries) {
        for (Map<String, Object> panel : panels) {
            for (Map<String, Object> target : (List<Map<String, Object>>) panel.getOrDefault("targets", List.of())) {
                queries.put(panel.get("title") + " #" + target.get("refId"), (String) target.get("expr"));
            }
            addQueries((List<Map<String, Object>>) panel.getOrDefault("panels", List.of()), queries);
        }
    }

    /** The input series of every test in the promtool test file, as written ('name{label="value", ...}'). */
    @SuppressWarnings("unchecked")
    public static List<String> testSeries() {
        return ((List<Map<String, Object>>) read(RULES_TEST).get("tests"))
                .stream()
                        .flatMap(t -> ((List<Map<String, Object>>) t.get("input_series")).stream())
                        .map(s -> (String) s.get("series"))
                        .toList();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> read(Path yaml) {
        try {
            return YAMLMapper.builder().build().readValue(Files.readString(yaml), LinkedHashMap.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.lbk8s.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The series of one or more /metrics pages (Prometheus text format), and what an expression asks of them: every
 * metric it selects is there, with every label it matches or groups by, and every value an equality or a regex of
 * alternatives names. Labels Prometheus adds to every target (instance, job) count as present.
 */
public record ScrapedMetrics(Map<String, List<Map<String, String>>> series) {
    public static final Set<String> TARGET_LABELS = Set.of("instance", "job");

    public static ScrapedMetrics parse(String text) {
        Map<String, List<Map<String, String>>> series = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            String name = line.substring(0, brace >= 0 && brace < space ? brace : space);
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                PromQl.parse(line.substring(0, line.lastIndexOf('}') + 1))
                        .selectors()
                        .getFirst()
                        .matchers()
                        .forEach(m -> labels.put(m.label(), m.value()));
            }
            series.computeIfAbsent(name, k -> new ArrayList<>()).add(labels);
        }
        return new ScrapedMetrics(series);
    }

    public Set<String> labelNames(String metric) {
        Set<String> names = new TreeSet<>();
        series.getOrDefault(metric, List.of()).forEach(l -> names.addAll(l.keySet()));
        return names;
    }

    public Set<String> values(String metric, String label) {
        Set<String> values = new TreeSet<>();
        series.getOrDefault(metric, List.of()).forEach(l -> {
            if (l.containsKey(label)) {
                values.add(l.get(label));
            }
        });
        return values;
    }

    /** What {@code expr} (at {@code where}) selects, matches or groups by that these pages do not have. */
    public List<String> problems(String where, String expr) {
        List<String> problems = new ArrayList<>();
        PromQl.Parsed parsed = PromQl.parse(expr);
        if (parsed.selectors().isEmpty()) {
            problems.add(where + ": selects no metric: " + expr);
        }
        Set<String> known = new TreeSet<>(TARGET_LABELS);
        for (PromQl.Selector s : parsed.selectors()) {
            if (!series.containsKey(s.metric())) {
                problems.add(where + ": no metric " + s.metric() + " in /metrics");
                continue;
            }
            known.addAll(labelNames(s.metric()));
            for (PromQl.Matcher m : s.matchers()) {
                if (TARGET_LABELS.contains(m.label())) {
                    continue;
                }
                if (!labelNames(s.metric()).contains(m.label())) {
                    problems.add(where + ": " + s.metric() + " has no label " + m.label() + " (it has "
                            + labelNames(s.metric()) + ")");
                } else if ((m.op().equals("=") || m.op().equals("=~"))
                        && m.value().matches("[\\w.:/-]+(\\|[\\w.:/-]+)*")) {
                    for (String value : m.value().split("\\|")) {
                        if (!values(s.metric(), m.label()).contains(value)) {
                            problems.add(where + ": " + s.metric() + "{" + m.label() + "} was never " + value
                                    + " (it was " + values(s.metric(), m.label()) + ")");
                        }
                    }
                }
            }
        }
        for (String label : parsed.groupingLabels()) {
            if (!known.contains(label)) {
                problems.add(
                        where + ": groups by " + label + ", a label of none of its metrics (they have " + known + ")");
            }
        }
        return problems;
    }
}

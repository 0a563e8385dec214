package io.lbk8s.metrics;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The metric selectors and grouping labels of a PromQL expression, for checking alerts and dashboards against what
 * /metrics exports. A tokenizer, not a parser: it skips strings, numbers, durations and range brackets, takes an
 * identifier followed by "(" (or an aggregation's name) as a function or aggregation, the lists after by, without, on, ignoring, group_left and
 * group_right as label names, and any other identifier (with the matchers in the braces after it) as a selector.
 */
public final class PromQl {
    private PromQl() {}

    public record Matcher(String label, String op, String value) {}

    public record Selector(String metric, List<Matcher> matchers) {}

    public record Parsed(List<Selector> selectors, Set<String> groupingLabels) {}

    private static final Set<String> GROUPING = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
    /** Aggregations, which may have their grouping between their name and their "(". */
    private static final Set<String> AGGREGATIONS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile",
            "limitk",
            "limit_ratio");

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "inf", "nan", "atan2");

    public static Parsed parse(String expr) {
        List<Selector> selectors = new ArrayList<>();
        Set<String> grouping = new LinkedHashSet<>();
        int i = 0;
        int n = expr.length();
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = endOfString(expr, i);
            } else if (c == '[') {
                i = expr.indexOf(']', i) + 1; // a range or subquery: durations and $__rate_interval
                if (i == 0) {
                    throw new IllegalArgumentException("unclosed [ in " + expr);
                }
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))) {
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '.')) {
                    i++;
                }
            } else if (c == '$') {
                i = endOfIdentifier(expr, i + 1); // a Grafana variable
            } else if (isIdentifierStart(c)) {
                int end = endOfIdentifier(expr, i);
                String word = expr.substring(i, end);
                int next = skipSpace(expr, end);
                if (GROUPING.contains(word)) {
                    if (next < n && expr.charAt(next) == '(') {
                        int close = expr.indexOf(')', next);
                        for (String label : expr.substring(next + 1, close).split(",")) {
                            if (!label.isBlank()) {
                                grouping.add(label.strip());
                            }
                        }
                        i = close + 1;
                    } else {
                        i = end; // group_left without labels
                    }
                } else if (KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                    i = end;
                } else if (AGGREGATIONS.contains(word) || (next < n && expr.charAt(next) == '(')) {
                    i = end; // a function or an aggregation
                } else if (next < n && expr.charAt(next) == '{') {
                    int close = closingBrace(expr, next);
                    selectors.add(new Selector(word, matchers(expr.substring(next + 1, close), expr)));
                    i = close + 1;
                } else {
                    selectors.add(new Selector(word, List.of()));
                    i = end;
                }
            } else if (c == '{') {
                throw new IllegalArgumentException("a selector without a metric name: " + expr);
            } else {
                i++;
            }
        }
        return new Parsed(List.copyOf(selectors), Set.copyOf(grouping));
    }

    private static List<Matcher> matchers(String inside, String expr) {
        List<Matcher> matchers = new ArrayList<>();
        int i = skipSpace(inside, 0);
        while (i < inside.length()) {
            int end = endOfIdentifier(inside, i);
            String label = inside.substring(i, end);
            int opStart = skipSpace(inside, end);
            int opEnd = opStart;
            while (opEnd < inside.length() && "=!~".indexOf(inside.charAt(opEnd)) >= 0) {
                opEnd++;
            }
            String op = inside.substring(opStart, opEnd);
            int valueStart = skipSpace(inside, opEnd);
            if (label.isEmpty() || op.isEmpty() || valueStart >= inside.length()) {
                throw new IllegalArgumentException("cannot read the matchers {" + inside + "} of " + expr);
            }
            int valueEnd = endOfString(inside, valueStart);
            matchers.add(new Matcher(label, op, unquote(inside.substring(valueStart, valueEnd))));
            i = skipSpace(inside, valueEnd);
            if (i < inside.length() && inside.charAt(i) == ',') {
                i = skipSpace(inside, i + 1);
            }
        }
        return matchers;
    }

    private static String unquote(String quoted) {
        String body = quoted.substring(1, quoted.length() - 1);
        if (quoted.charAt(0) == '`') {
            return body;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length()) {
                char e = body.charAt(++i);
                out.append(e == 'n' ? '\n' : e);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static int endOfString(String s, int start) {
        char quote = s.charAt(start);
        if (quote != '"' && quote != '\'' && quote != '`') {
            throw new IllegalArgumentException("not a string at " + start + ": " + s);
        }
        for (int i = start + 1; i < s.length(); i++) {
            if (s.charAt(i) == '\\' && quote != '`') {
                i++;
            } else if (s.charAt(i) == quote) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("unclosed string in " + s);
    }

    private static int closingBrace(String s, int open) {
        int i = open + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = endOfString(s, i);
            } else if (c == '}') {
                return i;
            } else {
                i++;
            }
        }
        throw new IllegalArgumentException("unclosed { in " + s);
    }

    private static boolean isIdentifierStart(char c) {
        return Character.isLetter(c) || c == '_' || c == ':';
    }

    private static int endOfIdentifier(String s, int i) {
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == ':')) {
            i++;
        }
        return i;
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }
}

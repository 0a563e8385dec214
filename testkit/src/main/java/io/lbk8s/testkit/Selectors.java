package io.lbk8s.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Label and field selectors with the API server's grammar and semantics.
 * Label selectors: {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)},
 * {@code k}, {@code !k}, {@code k>n}, {@code k<n}, comma separated (AND).
 * Field selectors: {@code path=v}, {@code path==v}, {@code path!=v} over dotted paths of the object.
 */
public final class Selectors {

    private Selectors() {}

    /** One requirement of a selector. */
    public sealed interface Requirement {
        boolean matches(Function<String, String> lookup);
    }

    public record Equals(String key, String value) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            return value.equals(lookup.apply(key));
        }
    }

    public record NotEquals(String key, String value) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            return !value.equals(lookup.apply(key));
        }
    }

    public record In(String key, Set<String> values) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            String v = lookup.apply(key);
            return v != null && values.contains(v);
        }
    }

    public record NotIn(String key, Set<String> values) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            String v = lookup.apply(key);
            return v == null || !values.contains(v);
        }
    }

    public record Exists(String key) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            return lookup.apply(key) != null;
        }
    }

    public record DoesNotExist(String key) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            return lookup.apply(key) == null;
        }
    }

    public record GreaterThan(String key, long bound) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            Long v = asLong(lookup.apply(key));
            return v != null && v > bound;
        }
    }

    public record LessThan(String key, long bound) implements Requirement {
        public boolean matches(Function<String, String> lookup) {
            Long v = asLong(lookup.apply(key));
            return v != null && v < bound;
        }
    }

    private static Long asLong(String s) {
        try {
            return s == null ? null : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static final String KEY = "([A-Za-z0-9][-A-Za-z0-9_./]*)";
    private static final Pattern SET = Pattern.compile(KEY + "\\s+(in|notin)\\s*\\((.*)\\)");
    private static final Pattern OP = Pattern.compile(KEY + "\\s*(==|!=|=|>|<)\\s*(.*)");
    private static final Pattern NOT_EXISTS = Pattern.compile("!\\s*" + KEY);
    private static final Pattern EXISTS = Pattern.compile(KEY);

    /** Parses a label selector; throws IllegalArgumentException on syntax errors. */
    public static List<Requirement> parseLabelSelector(String selector) {
        List<Requirement> result = new ArrayList<>();
        if (selector == null) {
            return result;
        }
        for (String raw : splitTopLevel(selector)) {
            String r = raw.trim();
            if (r.isEmpty()) {
                continue;
            }
            Matcher m;
            if ((m = SET.matcher(r)).matches()) {
                Set<String> values = new java.util.LinkedHashSet<>();
                for (String v : m.group(3).split(",")) {
                    if (!v.isBlank()) {
                        values.add(v.trim());
                    }
                }
                result.add(m.group(2).equals("in") ? new In(m.group(1), values) : new NotIn(m.group(1), values));
            } else if ((m = OP.matcher(r)).matches()) {
                String key = m.group(1);
                String value = m.group(3).trim();
                result.add(
                        switch (m.group(2)) {
                            case "!=" -> new NotEquals(key, value);
                            case ">" -> new GreaterThan(key, parseBound(r, value));
                            case "<" -> new LessThan(key, parseBound(r, value));
                            default -> new Equals(key, value);
                        });
            } else if ((m = NOT_EXISTS.matcher(r)).matches()) {
                result.add(new DoesNotExist(m.group(1)));
            } else if ((m = EXISTS.matcher(r)).matches()) {
                result.add(new Exists(m.group(1)));
            } else {
                throw new IllegalArgumentException("unable to parse requirement: " + r);
            }
        }
        return result;
    }

    private static long parseBound(String requirement, String value) {
        Long bound = asLong(value);
        if (bound == null) {
            throw new IllegalArgumentException("unable to parse requirement: " + requirement);
        }
        return bound;
    }

    /** Parses a field selector (only =, ==, != are defined for fields). */
    public static List<Requirement> parseFieldSelector(String selector) {
        List<Requirement> result = new ArrayList<>();
        if (selector == null) {
            return result;
        }
        for (String raw : selector.split(",")) {
            String r = raw.trim();
            if (r.isEmpty()) {
                continue;
            }
            int ne = r.indexOf("!=");
            if (ne > 0) {
                result.add(new NotEquals(
                        r.substring(0, ne).trim(), r.substring(ne + 2).trim()));
                continue;
            }
            int eq = r.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("invalid field selector requirement: " + r);
            }
            String value = r.substring(eq + 1);
            if (value.startsWith("=")) {
                value = value.substring(1);
            }
            result.add(new Equals(r.substring(0, eq).trim(), value.trim()));
        }
        return result;
    }

    public static boolean matchesLabels(List<Requirement> requirements, JsonNode object) {
        JsonNode labels = object.path("metadata").path("labels");
        return requirements.stream()
                .allMatch(r -> r.matches(k -> {
                    JsonNode v = labels.get(k);
                    return v == null || v.isNull() ? null : v.asString();
                }));
    }

    public static boolean matchesFields(List<Requirement> requirements, JsonNode object) {
        return requirements.stream().allMatch(r -> r.matches(path -> fieldValue(object, path)));
    }

    /** The value of a dotted field path as the API server compares it; missing fields compare as "". */
    static String fieldValue(JsonNode object, String path) {
        JsonNode node = object;
        for (String part : path.split("\\.")) {
            node = node.path(part);
        }
        if (node.isMissingNode() || node.isNull()) {
            return "";
        }
        return node.isValueNode() ? node.asString() : node.toString();
    }

    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }
}

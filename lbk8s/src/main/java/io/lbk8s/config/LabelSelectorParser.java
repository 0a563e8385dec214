package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.list;
import static io.lbk8s.config.RawValues.stringKeys;
import static io.lbk8s.config.RawValues.strings;
import static io.lbk8s.config.RawValues.warnUnknown;

import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Kubernetes' label selector grammar ({@code matchLabels}, {@code matchExpressions} with In, NotIn, Exists and
 * DoesNotExist), read into {@link LabelSelector}s with the API server's rules for keys, values and operators, since
 * the CRD schema does not check them.
 */
final class LabelSelectorParser {
    private LabelSelectorParser() {}

    static List<LabelSelector> selectors(ProblemScope scope, String path, Object value) {
        List<?> list = list(scope, path, value, "a list of label selectors");
        List<LabelSelector> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String entryPath = path + "[" + i + "]";
            LabelSelector selector = selector(scope, entryPath, list.get(i));
            if (selector != null) {
                if (result.contains(selector)) {
                    scope.warn(entryPath + ": the same selector is listed twice");
                }
                result.add(selector);
            }
        }
        return result;
    }

    static LabelSelector selector(ProblemScope scope, String path, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(path + ": expected a label selector (a map with matchLabels and/or matchExpressions), got "
                    + describe(value));
            return null;
        }
        warnUnknown(scope, path, map, ConfigFields.SELECTOR_FIELDS);
        boolean ok = true;
        Map<String, String> matchLabels = new LinkedHashMap<>();
        Object labelsValue = map.get("matchLabels");
        String labelsPath = path + ".matchLabels";
        if (labelsValue != null) {
            if (!(labelsValue instanceof Map<?, ?> labels)) {
                scope.error(labelsPath + ": expected a map of label keys to values, got " + describe(labelsValue));
                ok = false;
            } else {
                for (Object keyObject : new TreeSet<>(stringKeys(labels))) {
                    String key = (String) keyObject;
                    Object labelValue = labels.get(key);
                    String reason = labelKeyProblem(key);
                    if (reason != null) {
                        scope.error(labelsPath + ": " + Quoted.of(key) + " is not a valid label key: " + reason);
                        ok = false;
                    }
                    if (!(labelValue instanceof String text)) {
                        scope.error(labelsPath + "." + key + ": expected a string, got " + describe(labelValue));
                        ok = false;
                    } else if (!isLabelValue(text)) {
                        scope.error(labelsPath + "." + key + ": " + Quoted.of(text) + " is not a valid label value: "
                                + LABEL_VALUE_RULE);
                        ok = false;
                    } else {
                        matchLabels.put(key, text);
                    }
                }
            }
        }
        List<LabelSelector.Requirement> requirements = new ArrayList<>();
        Object expressionsValue = map.get("matchExpressions");
        String expressionsPath = path + ".matchExpressions";
        if (expressionsValue != null) {
            if (!(expressionsValue instanceof List<?> expressions)) {
                scope.error(expressionsPath + ": expected a list of requirements, got " + describe(expressionsValue));
                ok = false;
            } else {
                for (int i = 0; i < expressions.size(); i++) {
                    LabelSelector.Requirement requirement =
                            requirement(scope, expressionsPath + "[" + i + "]", expressions.get(i));
                    if (requirement == null) {
                        ok = false;
                    } else {
                        requirements.add(requirement);
                    }
                }
            }
        }
        return ok ? new LabelSelector(matchLabels, requirements) : null;
    }

    private static LabelSelector.Requirement requirement(ProblemScope scope, String path, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(path + ": expected a map with key, operator and values, got " + describe(value));
            return null;
        }
        warnUnknown(scope, path, map, ConfigFields.REQUIREMENT_FIELDS);
        boolean ok = true;
        String key = requiredString(scope, path + ".key", map.get("key"), "");
        if (key == null) {
            ok = false;
        } else {
            String reason = labelKeyProblem(key);
            if (reason != null) {
                scope.error(path + ".key: " + Quoted.of(key) + " is not a valid label key: " + reason);
                ok = false;
            }
        }
        LabelSelector.Operator operator = null;
        String operatorText = requiredString(
                scope, path + ".operator", map.get("operator"), ": expected In, NotIn, Exists or DoesNotExist");
        if (operatorText == null) {
            ok = false;
        } else {
            for (LabelSelector.Operator candidate : LabelSelector.Operator.values()) {
                if (candidate.name().equals(operatorText)) {
                    operator = candidate;
                }
            }
            if (operator == null) {
                scope.error(path + ".operator: " + Quoted.of(operatorText)
                        + " is not an operator; expected In, NotIn, Exists or DoesNotExist");
                ok = false;
            }
        }
        int errorsBefore = scope.errors;
        List<String> values = strings(scope, path + ".values", map.get("values"), "label values");
        if (scope.errors != errorsBefore) {
            ok = false;
        }
        for (int i = 0; i < values.size(); i++) {
            if (!isLabelValue(values.get(i))) {
                scope.error(path + ".values[" + i + "]: " + Quoted.of(values.get(i)) + " is not a valid label value: "
                        + LABEL_VALUE_RULE);
                ok = false;
            }
        }
        if (operator != null && scope.errors == errorsBefore) {
            switch (operator) {
                case In, NotIn -> {
                    if (values.isEmpty()) {
                        scope.error(path + ".values: operator " + operator + " needs at least one value");
                        ok = false;
                    }
                }
                case Exists, DoesNotExist -> {
                    if (!values.isEmpty()) {
                        scope.error(path + ".values: operator " + operator + " takes no values, got " + values.size());
                        ok = false;
                    }
                }
            }
        }
        return ok ? new LabelSelector.Requirement(key, operator, new LinkedHashSet<>(values)) : null;
    }

    /** The string at {@code path}; null, with an error, when it is absent ("path is required" + {@code hint}) or not a string. */
    private static String requiredString(ProblemScope scope, String path, Object value, String hint) {
        if (value == null) {
            scope.error(path + " is required" + hint);
            return null;
        }
        if (!(value instanceof String text)) {
            scope.error(path + ": expected a string, got " + describe(value));
            return null;
        }
        return text;
    }

    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final String LABEL_NAME_RULE =
            "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
    private static final String LABEL_VALUE_RULE = "it must be empty or " + LABEL_NAME_RULE;

    /** Kubernetes' rule for a label key (a qualified name: optional DNS-subdomain prefix and '/', then a name). */
    private static String labelKeyProblem(String key) {
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty()
                    || prefix.length() > 253
                    || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "the prefix before '/' must be a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253)";
            }
        }
        if (name.isEmpty() || name.length() > 63 || !LABEL_NAME.matcher(name).matches()) {
            return "the name must be " + LABEL_NAME_RULE;
        }
        return null;
    }

    private static boolean isLabelValue(String value) {
        return value.isEmpty()
                || (value.length() <= 63 && LABEL_NAME.matcher(value).matches());
    }
}

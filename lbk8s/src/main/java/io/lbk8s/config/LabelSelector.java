package io.lbk8s.config;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Kubernetes label selector (matchLabels and matchExpressions), evaluated here rather than by the API server
 * so that set-based selectors work everywhere. An empty selector matches everything, as in Kubernetes.
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {

    public LabelSelector {
        matchLabels = Map.copyOf(matchLabels);
        matchExpressions = List.copyOf(matchExpressions);
    }

    public boolean matches(Map<String, String> labels) {
        for (var wanted : matchLabels.entrySet()) {
            if (!wanted.getValue().equals(labels.get(wanted.getKey()))) {
                return false;
            }
        }
        for (Requirement requirement : matchExpressions) {
            if (!requirement.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    public enum Operator {
        In,
        NotIn,
        Exists,
        DoesNotExist
    }

    public record Requirement(String key, Operator operator, Set<String> values) {
        public Requirement {
            values = Set.copyOf(values);
        }

        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case In -> value != null && values.contains(value);
                case NotIn -> value == null || !values.contains(value);
                case Exists -> labels.containsKey(key);
                case DoesNotExist -> !labels.containsKey(key);
            };
        }
    }
}

package io.lbk8s.config;

import java.util.List;

/** Problems of one object (or one ConfigMap pool): origin, message prefix, and whether an error was found. */
final class ProblemScope {
    final ConfigOrigin origin;
    final String prefix;
    final List<ConfigProblem> out;
    boolean failed;
    int errors;

    ProblemScope(ConfigOrigin origin, String prefix, List<ConfigProblem> out) {
        this.origin = origin;
        this.prefix = prefix;
        this.out = out;
    }

    void error(String message) {
        out.add(ConfigProblem.error(origin, prefix + message));
        failed = true;
        errors++;
    }

    void warn(String message) {
        out.add(ConfigProblem.warning(origin, prefix + message));
    }
}

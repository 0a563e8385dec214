package io.lbk8s.config;

import java.util.List;

/**
 * The outcome of parsing: the configuration built from every valid part, and every problem found. A result with
 * an ERROR problem is invalid as a whole and must not replace the last valid configuration.
 */
public record ConfigResult(Config config, List<ConfigProblem> problems) {

    public ConfigResult {
        problems = List.copyOf(problems);
    }

    public boolean valid() {
        return problems.stream().noneMatch(p -> p.severity() == ConfigProblem.Severity.ERROR);
    }
}

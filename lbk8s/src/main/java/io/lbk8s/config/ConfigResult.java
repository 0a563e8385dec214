package io.lbk8s.config;

import java.util.List;

/**
 * The outcome of parsing: the configuration built from every valid part, and every problem found. Any ERROR makes
 * it not {@link #valid()}, what the ConfigurationState reports; which version of a refused object stays in use is
 * {@link AcceptedConfig}'s to decide.
 */
public record ConfigResult(Config config, List<ConfigProblem> problems) {

    public ConfigResult {
        problems = List.copyOf(problems);
    }

    public boolean valid() {
        return problems.stream().noneMatch(p -> p.severity() == ConfigProblem.Severity.ERROR);
    }
}

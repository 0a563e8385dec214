package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.warnUnknown;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The first checks of every custom resource: it has a name, and its spec is a map of fields its kind knows. */
final class ObjectSpec {
    private ObjectSpec() {}

    /** A scope for the problems of {@code raw}, a {@code kind} object. */
    static ProblemScope scope(ConfigOrigin.Kind kind, ConfigSources.RawObject raw, List<ConfigProblem> problems) {
        return new ProblemScope(new ConfigOrigin(kind, raw.namespace(), raw.name()), "", problems);
    }

    /**
     * The object's spec, or empty when it cannot be read (an error is reported); a field not in {@code known} is
     * warned of. {@code requiredBecause} says why a spec is required; when empty, a missing spec is an empty map:
     * every field at its default.
     */
    static Optional<Map<?, ?>> of(
            ProblemScope scope,
            ConfigSources.RawObject raw,
            Optional<String> requiredBecause,
            List<ConfigFields.Field> known) {
        Optional<Map<?, ?>> spec = read(scope, raw, requiredBecause);
        spec.ifPresent(map -> warnUnknown(scope, "spec", map, known));
        return spec;
    }

    private static Optional<Map<?, ?>> read(
            ProblemScope scope, ConfigSources.RawObject raw, Optional<String> requiredBecause) {
        if (raw.name() == null || raw.name().isEmpty()) {
            scope.error("metadata.name is required");
        }
        if (raw.spec() == null) {
            if (requiredBecause.isPresent()) {
                scope.error("spec is required: " + requiredBecause.get());
                return Optional.empty();
            }
            return Optional.of(Map.of());
        }
        if (raw.spec() instanceof Map<?, ?> map) {
            return Optional.of(map);
        }
        scope.error("spec: expected a map, got " + describe(raw.spec()));
        return Optional.empty();
    }
}

package io.lbk8s.config;

import static io.lbk8s.config.RawValues.bool;
import static io.lbk8s.config.RawValues.whole;

import io.lbk8s.bfd.BfdSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One BFDProfile: MetalLB's fields and ranges, read into the {@link BfdSettings} a BGP session's BFD runs with. */
final class BfdProfileParser {
    private BfdProfileParser() {}

    private static final String INTERVAL_RANGE = "an interval is 10-60000 milliseconds";

    static Optional<BfdProfile> parse(ConfigSources.RawObject raw, List<ConfigProblem> problems) {
        ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.BFDProfile, raw, problems);
        Optional<Map<?, ?>> read = ObjectSpec.of(scope, raw, Optional.empty(), ConfigFields.BFD_PROFILE_SPEC_FIELDS);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get();
        BfdSettings defaults = BfdSettings.DEFAULTS;
        long receive =
                number(scope, spec, "receiveInterval", 10, 60_000, INTERVAL_RANGE, millis(defaults.receiveInterval()));
        long transmit = number(
                scope, spec, "transmitInterval", 10, 60_000, INTERVAL_RANGE, millis(defaults.transmitInterval()));
        long multiplier =
                number(scope, spec, "detectMultiplier", 2, 255, "a multiplier is 2-255", defaults.detectMultiplier());
        number(scope, spec, "echoInterval", 10, 60_000, INTERVAL_RANGE, 50);
        long minimumTtl = number(scope, spec, "minimumTtl", 1, 254, "a TTL is 1-254", defaults.minimumTtl());
        boolean passive = bool(scope, spec, "passiveMode", "passiveMode", defaults.passive());
        if (bool(scope, spec, "echoMode", "echoMode", false)) {
            // a warning, not an error: the session is still watched, by control packets instead of echoes
            scope.warn("echoMode is not supported by lbk8s: BFD runs in asynchronous mode only, with control packets"
                    + " at receiveInterval and transmitInterval; echoInterval is not used");
        }
        if (scope.failed) {
            return Optional.empty();
        }
        BfdSettings settings = new BfdSettings(
                Duration.ofMillis(receive), Duration.ofMillis(transmit), (int) multiplier, passive, (int) minimumTtl);
        return Optional.of(new BfdProfile(raw.name(), settings, scope.origin));
    }

    private static long number(
            ProblemScope scope, Map<?, ?> spec, String field, long min, long max, String range, long otherwise) {
        Object value = spec.get(field);
        if (value == null) {
            return otherwise;
        }
        Long read = whole(scope, field, value, min, max, range);
        return read == null ? otherwise : read;
    }

    private static long millis(Duration duration) {
        return duration.toMillis();
    }
}

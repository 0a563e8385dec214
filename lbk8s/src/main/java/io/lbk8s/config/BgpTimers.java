package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;

import io.lbk8s.text.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A BGPPeer's timers, with MetalLB's defaults and rules: durations in Go's notation ({@code 90s}, {@code 1m30s});
 * the hold time 0 (no keepalives) or at least 3 s (RFC 4271 4.2); the keepalive time not above the hold time; the
 * connect time whole seconds from 1 s to 65535 s. With only a keepalive time the hold time is three times it, as in
 * MetalLB; with only a hold time the keepalive time is left to the session (a third of the negotiated hold time).
 */
record BgpTimers(Duration holdTime, Optional<Duration> keepaliveTime, Duration connectTime) {

    /** MetalLB's hold time when none is given. */
    static final Duration DEFAULT_HOLD_TIME = Duration.ofSeconds(90);
    /** FRR's connect timer, which MetalLB leaves in place when none is given. */
    static final Duration DEFAULT_CONNECT_TIME = Duration.ofSeconds(120);

    private static final Duration SHORTEST_HOLD_TIME = Duration.ofSeconds(3);
    private static final Duration LONGEST_CONNECT_TIME = Duration.ofSeconds(65_535);

    /** The timers of a BGPPeer spec; problems are reported in the scope and the defaults used in their place. */
    static BgpTimers read(ProblemScope scope, Map<?, ?> spec) {
        Optional<Duration> hold = duration(scope, spec, "holdTime");
        Optional<Duration> keepalive = duration(scope, spec, "keepaliveTime");
        Optional<Duration> connect = duration(scope, spec, "connectTime");

        Duration holdTime = hold.orElse(keepalive.map(k -> k.multipliedBy(3)).orElse(DEFAULT_HOLD_TIME));
        // BGP carries the hold time in whole seconds: MetalLB judges it rounded down, and so does lbk8s
        long holdSeconds = holdTime.toSeconds();
        if (hold.isPresent() && holdSeconds != 0 && holdTime.compareTo(SHORTEST_HOLD_TIME) < 0) {
            scope.error("holdTime: " + text(spec, "holdTime")
                    + " is too short: a hold time is 0 (no keepalives) or at least 3s");
        }
        if (keepalive.isPresent() && keepalive.get().compareTo(holdTime) > 0) {
            // only with both given: a hold time derived from the keepalive time is three times it
            scope.error("keepaliveTime: " + text(spec, "keepaliveTime") + " is longer than holdTime "
                    + text(spec, "holdTime") + ": the peer would drop the session between two keepalives");
        }
        Duration connectTime = connect.orElse(DEFAULT_CONNECT_TIME);
        if (connect.isPresent()
                && (connectTime.toMillis() % 1000 != 0
                        || connectTime.compareTo(Duration.ofSeconds(1)) < 0
                        || connectTime.compareTo(LONGEST_CONNECT_TIME) > 0)) {
            scope.error("connectTime: " + text(spec, "connectTime")
                    + " is not a whole number of seconds from 1s to 65535s");
        }
        return new BgpTimers(holdTime, keepalive, connectTime);
    }

    private static Optional<Duration> duration(ProblemScope scope, Map<?, ?> spec, String field) {
        Object value = spec.get(field);
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof String text)) {
            scope.error(field + ": expected a duration like 90s or 1m30s, got " + describe(value));
            return Optional.empty();
        }
        try {
            return Optional.of(Durations.parse(field, text));
        } catch (IllegalArgumentException e) {
            scope.error(e.getMessage());
            return Optional.empty();
        }
    }

    private static String text(Map<?, ?> spec, String field) {
        return String.valueOf(spec.get(field));
    }
}

package io.lbk8s.peers;

import java.time.Duration;

/**
 * How the speakers' failure detector runs.
 *
 * @param port        the UDP port every speaker listens on (hostNetwork), 0 to run without the detector
 * @param interval    how often a speaker sends each peer a heartbeat
 * @param membership  detection time and rejoin holds ({@link Membership.Settings})
 * @param clockWindow how far a message's clock may be from ours (bounds replays; speakers' clocks must agree this well)
 * @param secretName  the Secret holding the keys, in the speaker's namespace
 */
public record PeerSettings(
        int port, Duration interval, Membership.Settings membership, Duration clockWindow, String secretName) {

    public static final int DEFAULT_PORT = 7947;
    public static final String DEFAULT_SECRET = "lbk8s-speaker-peers";
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(50);
    public static final Duration DEFAULT_CLOCK_WINDOW = Duration.ofSeconds(10);
    public static final int REALTIME_PRIORITY = 10;
    /** The whole speaker's nice value, so that its JVM's safepoints are not starved by ordinary work. */
    public static final int NICE = -10;

    public PeerSettings {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("peer port " + port + " is not 0 or 1-65535");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the heartbeat interval must be positive");
        }
        if (membership.timeout().compareTo(interval.multipliedBy(4)) < 0) {
            throw new IllegalArgumentException("the detection time ("
                    + membership.timeout().toMillis() + " ms) must be at least 4 heartbeat intervals ("
                    + interval.multipliedBy(4).toMillis() + " ms)");
        }
    }

    /** The defaults, listening on {@code port}. */
    public static PeerSettings defaults(int port) {
        return new PeerSettings(
                port, DEFAULT_INTERVAL, Membership.Settings.DEFAULTS, DEFAULT_CLOCK_WINDOW, DEFAULT_SECRET);
    }

    public boolean enabled() {
        return port != 0;
    }

    /**
     * How long one renewal of the fence lets this node answer: two intervals short of the detection time. A node frozen
     * right after a heartbeat falls silent two intervals before its peers declare it dead, and the new leader's probe
     * comes after that, so no client sees two nodes answer within {@code 2 × interval} plus the probe.
     */
    public Duration fenceTime() {
        return membership.timeout().minus(interval.multipliedBy(2));
    }

    /**
     * A pause of the detector's own thread longer than this may have made its peers declare this node dead (they
     * notice a silence of the timeout, and the last heartbeat may have gone out an interval before the pause): what it
     * heard before is then stale, and it listens again before this node announces. A shorter pause only let the fence
     * lapse for a moment.
     */
    public Duration stallTime() {
        return membership.timeout().minus(interval);
    }
}

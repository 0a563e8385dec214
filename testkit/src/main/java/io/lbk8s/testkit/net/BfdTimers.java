package io.lbk8s.testkit.net;

import java.time.Duration;

/**
 * BFD timers a test router proposes for a session (RFC 5880): how often it wants to receive and send control packets,
 * and after how many missed ones the session is down.
 */
public record BfdTimers(Duration receiveInterval, Duration transmitInterval, int detectMultiplier) {

    /** MetalLB's and FRR's default: 300 ms × 3, a dead peer noticed in about a second. */
    public static final BfdTimers DEFAULT = new BfdTimers(Duration.ofMillis(300), Duration.ofMillis(300), 3);

    public BfdTimers {
        if (receiveInterval.toMillis() < 10 || transmitInterval.toMillis() < 10) {
            throw new IllegalArgumentException(
                    "intervals must be at least 10 ms: receive " + receiveInterval + ", transmit " + transmitInterval);
        }
        if (detectMultiplier < 2 || detectMultiplier > 255) {
            throw new IllegalArgumentException("detect multiplier must be 2..255: " + detectMultiplier);
        }
    }
}

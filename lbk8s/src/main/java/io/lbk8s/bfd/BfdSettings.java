package io.lbk8s.bfd;

import java.time.Duration;

/**
 * A BFD session's parameters, as a MetalLB BFDProfile sets them (defaults: 300 ms both ways, multiplier 3).
 *
 * @param receiveInterval  the slowest rate this node asks the peer to send at (Required Min RX Interval)
 * @param transmitInterval the fastest rate this node wants to send at (Desired Min TX Interval)
 * @param passive          wait for the peer's first packet instead of sending first
 * @param minimumTtl       packets with a lower TTL are dropped (single hop: 255, RFC 5881 5)
 */
public record BfdSettings(
        Duration receiveInterval, Duration transmitInterval, int detectMultiplier, boolean passive, int minimumTtl) {

    public static final BfdSettings DEFAULTS =
            new BfdSettings(Duration.ofMillis(300), Duration.ofMillis(300), 3, false, 254);
}

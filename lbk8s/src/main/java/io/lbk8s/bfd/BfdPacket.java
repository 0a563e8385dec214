package io.lbk8s.bfd;

/**
 * A BFD control packet without authentication (RFC 5880 4.1), the intervals in microseconds. The C bit stays clear
 * (a user-space daemon shares fate with the control plane) and so do A and M, which lbk8s does not use.
 *
 * @param poll  asks the peer to confirm changed parameters with {@code fin} (the Poll Sequence, 6.5)
 * @param fin   confirms a peer's poll
 * @param demand the sender asks not to be sent periodic packets (lbk8s never sets it)
 */
public record BfdPacket(
        Diagnostic diagnostic,
        BfdState state,
        boolean poll,
        boolean fin,
        boolean controlPlaneIndependent,
        boolean demand,
        int detectMultiplier,
        int myDiscriminator,
        int yourDiscriminator,
        long desiredMinTxMicros,
        long requiredMinRxMicros,
        long requiredMinEchoRxMicros) {

    public static final int VERSION = 1;
    /** The length of a packet without an authentication section. */
    public static final int LENGTH = 24;

    public BfdPacket {
        if (poll && fin) {
            throw new IllegalArgumentException("a packet cannot carry both Poll and Final (RFC 5880 6.5)");
        }
        if (detectMultiplier < 0 || detectMultiplier > 255) {
            throw new IllegalArgumentException("detect multiplier " + detectMultiplier + " outside 0..255");
        }
    }
}

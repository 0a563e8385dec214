package io.lbk8s.bfd;

/** Why a session last left Up, as a control packet's Diag field says (RFC 5880 4.1). */
public enum Diagnostic {
    NONE,
    CONTROL_DETECTION_TIME_EXPIRED,
    ECHO_FUNCTION_FAILED,
    NEIGHBOR_SIGNALED_SESSION_DOWN,
    FORWARDING_PLANE_RESET,
    PATH_DOWN,
    CONCATENATED_PATH_DOWN,
    ADMINISTRATIVELY_DOWN,
    REVERSE_CONCATENATED_PATH_DOWN,
    /** Codes 9 to 31, which RFC 5880 reserves: kept apart instead of dropping the packet. */
    RESERVED;

    public int code() {
        return this == RESERVED ? 31 : ordinal();
    }

    public static Diagnostic of(int code) {
        return code >= 0 && code < RESERVED.ordinal() ? values()[code] : RESERVED;
    }
}

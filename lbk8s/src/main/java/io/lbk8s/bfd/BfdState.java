package io.lbk8s.bfd;

/** RFC 5880's session states (6.2). */
public enum BfdState {
    ADMIN_DOWN,
    DOWN,
    INIT,
    UP
}

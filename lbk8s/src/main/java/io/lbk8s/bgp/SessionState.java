package io.lbk8s.bgp;

/** The states of RFC 4271's finite state machine, as a session to one peer reports them. */
public enum SessionState {
    IDLE,
    CONNECT,
    ACTIVE,
    OPEN_SENT,
    OPEN_CONFIRM,
    ESTABLISHED
}

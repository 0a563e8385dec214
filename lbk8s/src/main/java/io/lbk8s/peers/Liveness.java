package io.lbk8s.peers;

/** What this speaker's failure detector says of a node, for the leader choice. */
public enum Liveness {
    /** Its speaker has not been heard since this one started: the API alone judges it (a blocked port, another key). */
    NOT_HEARD,
    /** Heard within the detection time and ready: a candidate. */
    ALIVE,
    /** Heard, but not a candidate yet: starting, resuming, rejoining after a failure, or cut off from its own peers. */
    HELD,
    /** Silent for longer than the detection time, or it left. */
    DEAD;

    /** Whether the detector lets this node announce (the API has its own say). */
    public boolean eligible() {
        return this == ALIVE || this == NOT_HEARD;
    }
}

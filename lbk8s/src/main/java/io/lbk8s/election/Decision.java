package io.lbk8s.election;

/** What a candidate does after a read of the Lease (or a failed one), as {@link Elector} decides. */
public sealed interface Decision {

    /** Write this candidate as the holder: the Lease is missing, released, or was left unchanged too long. */
    record Acquire(String why) implements Decision {}

    /** This candidate holds the Lease: write a new renewTime. */
    record Renew() implements Decision {}

    /** Another candidate holds the Lease and keeps it fresh (or this one cannot tell yet). */
    record Follow(String why) implements Decision {}

    /** This candidate was leading and must stop now: it could not renew in time, or someone else holds the Lease. */
    record StopLeading(String why) implements Decision {}
}

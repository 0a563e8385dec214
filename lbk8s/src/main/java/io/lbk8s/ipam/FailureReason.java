package io.lbk8s.ipam;

/** Why a Service got no address; each reason comes with a sentence naming the pool, IP or Service involved. */
public enum FailureReason {
    /** No pool is configured at all. */
    NO_POOLS,
    /** No auto-assign pool selects this Service (serviceAllocation, autoAssign: false, or no pool of its family). */
    NO_MATCHING_POOL,
    /** The requested pool does not exist. */
    POOL_NOT_FOUND,
    /** The requested pool is reserved by its serviceAllocation for other Services. */
    POOL_NOT_ALLOWED,
    /** Every candidate pool is full. */
    POOL_EXHAUSTED,
    /** A requested IP lies in no pool (or not in the requested pool). */
    IP_NOT_IN_POOL,
    /** A requested IP is held by another Service that it cannot be shared with. */
    IP_IN_USE,
    /** A requested IP ends in .0 or .255 in a pool with avoidBuggyIPs. */
    IP_FORBIDDEN,
    /** The family policy cannot be met: RequireDualStack without a dual-stack pool, or a family no pool has. */
    FAMILY_UNAVAILABLE,
    /** The request contradicts itself (e.g. two IPs of one family, an IP of a family the Service does not have). */
    INVALID_REQUEST
}

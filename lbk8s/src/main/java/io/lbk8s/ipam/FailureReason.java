package io.lbk8s.ipam;

/** Why a Service got no address; each reason comes with a sentence naming the pool, IP or Service involved. */
public enum FailureReason {
    /** No pool is configured at all (whatever the request asks for). */
    NO_POOLS,
    /** No auto-assign pool selects this Service: every pool is reserved by serviceAllocation or has autoAssign: false. */
    NO_MATCHING_POOL,
    /** The requested pool does not exist. */
    POOL_NOT_FOUND,
    /** The requested pool, or the pool of a requested IP, is reserved by its serviceAllocation for other Services. */
    POOL_NOT_ALLOWED,
    /** Every candidate pool with the wanted family (or both families, for RequireDualStack) is full. */
    POOL_EXHAUSTED,
    /** A requested IP lies in no pool (or not in the requested pool). */
    IP_NOT_IN_POOL,
    /** A requested IP is held by another Service that it cannot be shared with. */
    IP_IN_USE,
    /** A requested IP ends in .0 or .255 in a pool with avoidBuggyIPs. */
    IP_FORBIDDEN,
    /** A requested IP is excluded ({@link ExcludedAddresses}): a node, its gateway or the API server answers for it. */
    IP_EXCLUDED,
    /** The family policy cannot be met: RequireDualStack without a dual-stack candidate pool, or a family no candidate pool has. */
    FAMILY_UNAVAILABLE,
    /**
     * The request contradicts itself: two IPs of one family, an IP of a family the Service does not have, two IPs for
     * a SingleStack Service, one IP for a RequireDualStack one, or requested IPs in different pools.
     */
    INVALID_REQUEST
}

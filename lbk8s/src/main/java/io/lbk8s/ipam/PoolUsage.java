package io.lbk8s.ipam;

/**
 * How full a pool is: {@code total} addresses usable (saturated at Long.MAX_VALUE; excluded addresses not counted),
 * {@code inUse} distinct ones held, and {@code excluded} addresses of the pool that are never handed out
 * ({@link ExcludedAddresses}).
 */
public record PoolUsage(String pool, long total, long inUse, long excluded) {
    public PoolUsage(String pool, long total, long inUse) {
        this(pool, total, inUse, 0);
    }

    public long free() {
        return total == Long.MAX_VALUE ? Long.MAX_VALUE : total - inUse;
    }
}

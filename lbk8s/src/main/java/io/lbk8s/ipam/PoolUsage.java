package io.lbk8s.ipam;

/** How full a pool is: {@code total} addresses usable (saturated at Long.MAX_VALUE), {@code inUse} distinct ones held. */
public record PoolUsage(String pool, long total, long inUse) {
    public long free() {
        return total == Long.MAX_VALUE ? Long.MAX_VALUE : total - inUse;
    }
}

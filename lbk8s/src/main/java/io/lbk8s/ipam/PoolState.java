package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;

/** One configured pool and the usage of its ranges. */
final class PoolState {

    final AddressPool pool;
    final String name;
    private final RangeState[] ranges;
    private final boolean hasV4;
    private final boolean hasV6;
    private final long total;
    /** Distinct addresses of this pool in use. */
    private long inUse;

    /** Addresses of this pool never handed out, with why; marked used in the ranges, without a holder. */
    final NavigableMap<IpAddress, String> excluded;

    PoolState(AddressPool pool, ExcludedAddresses exclusions) {
        this.pool = pool;
        this.name = pool.name();
        List<IpRange> list = pool.ranges();
        this.ranges = new RangeState[list.size()];
        for (int i = 0; i < ranges.length; i++) {
            ranges[i] = new RangeState(list.get(i), pool.avoidBuggyIPs());
        }
        this.excluded = Collections.unmodifiableNavigableMap(UsableAddresses.excludedIn(pool, exclusions));
        for (IpAddress ip : excluded.keySet()) {
            for (RangeState r : ranges) {
                if (r.contains(ip)) {
                    r.mark(ip); // taken for good: lowestFree never returns it
                }
            }
        }
        this.total = UsableAddresses.of(pool, exclusions);
        this.hasV4 = pool.hasFamily(IpFamily.IPv4);
        this.hasV6 = pool.hasFamily(IpFamily.IPv6);
    }

    boolean hasFamily(IpFamily family) {
        return family == IpFamily.IPv4 ? hasV4 : hasV6;
    }

    boolean hasBothFamilies() {
        return hasV4 && hasV6;
    }

    long total() {
        return total;
    }

    long inUse() {
        return inUse;
    }

    boolean contains(IpAddress ip) {
        for (RangeState r : ranges) {
            if (r.contains(ip)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the address can be handed out from this pool: inside it, not forbidden by avoidBuggyIPs, not excluded. */
    boolean usable(IpAddress ip) {
        return contains(ip) && !pool.forbids(ip) && !excluded.containsKey(ip);
    }

    /** Marks the address used in every range of this pool that contains it (ranges of one pool may overlap). */
    void mark(IpAddress ip) {
        boolean changed = false;
        for (RangeState r : ranges) {
            if (r.contains(ip)) {
                changed |= r.mark(ip);
            }
        }
        if (changed) {
            inUse++;
        }
    }

    void clear(IpAddress ip) {
        if (excluded.containsKey(ip)) {
            return; // stays taken: it is never handed out
        }
        boolean changed = false;
        for (RangeState r : ranges) {
            if (r.contains(ip)) {
                changed |= r.clear(ip);
            }
        }
        if (changed) {
            inUse--;
        }
    }

    /** The lowest free address of a family, across ranges in their configured order; null when none. */
    IpAddress lowestFree(IpFamily family) {
        for (RangeState r : ranges) {
            if (r.family == family) {
                IpAddress ip = r.lowestFree();
                if (ip != null) {
                    return ip;
                }
            }
        }
        return null;
    }

    PoolUsage usage() {
        return new PoolUsage(name, total, inUse, excluded.size());
    }
}

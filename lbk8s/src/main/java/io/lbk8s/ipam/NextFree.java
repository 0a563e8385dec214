package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The addresses a pool would hand out next, in the allocator's order (its ranges in order, the lowest free address of
 * each): what the speakers probe ahead of time, so that an address another host uses is known before a Service gets
 * it. Pure.
 */
public final class NextFree {
    private NextFree() {}

    /** At most this many addresses are looked at past the taken ones in a range: the look ahead stays cheap. */
    private static final int SLACK = 1024;

    /** The first {@code count} addresses of the pool that are neither taken nor forbidden by avoidBuggyIPs. */
    public static List<IpAddress> of(AddressPool pool, Set<IpAddress> taken, int count) {
        List<IpAddress> next = new ArrayList<>(count);
        for (IpRange range : pool.ranges()) {
            long bound = Math.min(range.size(), (long) taken.size() + count + SLACK);
            for (long offset = 0; offset < bound && next.size() < count; offset++) {
                IpAddress ip = range.at(offset).orElseThrow();
                if (!taken.contains(ip) && !pool.forbids(ip) && !next.contains(ip)) {
                    next.add(ip);
                }
            }
            if (next.size() == count) {
                break;
            }
        }
        return next;
    }
}

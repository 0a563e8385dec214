package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * How many addresses a pool can hand out: every address of its ranges but the IPv4 .0 and .255 that avoidBuggyIPs
 * forbids, and but the {@link ExcludedAddresses excluded} ones. The allocator's totals and {@code lbk8s status} both count with it, so that they never disagree. Pure.
 */
public final class UsableAddresses {
    private UsableAddresses() {}

    /** The pool's usable addresses, saturated at Long.MAX_VALUE (IPv6 pools can hold far more). */
    public static long of(AddressPool pool) {
        long sum = 0;
        for (IpRange range : pool.ranges()) {
            long usable = in(range, pool.avoidBuggyIPs());
            sum = sum > Long.MAX_VALUE - usable ? Long.MAX_VALUE : sum + usable;
        }
        return sum;
    }

    /** The pool's usable addresses without the excluded ones, saturated at Long.MAX_VALUE. */
    public static long of(AddressPool pool, ExcludedAddresses excluded) {
        long usable = of(pool);
        return usable == Long.MAX_VALUE
                ? usable
                : usable - excludedIn(pool, excluded).size();
    }

    /**
     * The excluded addresses the pool would otherwise hand out (an address avoidBuggyIPs already forbids is not one),
     * with why.
     */
    public static NavigableMap<IpAddress, String> excludedIn(AddressPool pool, ExcludedAddresses excluded) {
        NavigableMap<IpAddress, String> in = new TreeMap<>();
        for (IpRange range : pool.ranges()) {
            excluded.in(range).forEach((ip, why) -> {
                if (!pool.forbids(ip)) {
                    in.put(ip, why);
                }
            });
        }
        return in;
    }

    /** One range's usable addresses, saturated at Long.MAX_VALUE. */
    static long in(IpRange range, boolean avoidBuggyIPs) {
        long size = range.size();
        if (size == Long.MAX_VALUE || !avoidBuggyIPs || range.family() != IpFamily.IPv4) {
            return size;
        }
        long from = range.first().low();
        long to = range.last().low();
        return size - (buggyUpTo(to) - (from == 0 ? 0 : buggyUpTo(from - 1)));
    }

    /** Count of x in [0, n] whose last byte is 0 or 255. */
    private static long buggyUpTo(long n) {
        return n / 256 + 1 + (n + 1) / 256;
    }
}

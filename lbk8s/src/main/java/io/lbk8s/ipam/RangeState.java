package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which offsets of one {@link IpRange} are in use: a paged bitset (pages of 4096 bits, created on first use) plus a
 * "lowest possibly free" hint, so that finding the lowest free address is amortised O(1) and a /64 costs nothing
 * until used. Invariant: every offset below {@code hint} is used or forbidden (avoidBuggyIPs).
 *
 * <p>Offsets that do not fit in a long (the upper half of ranges larger than 2^63 addresses) can only be reached by
 * requesting them explicitly; they are kept in a small set instead of the bitset.
 */
final class RangeState {

    private static final int PAGE_SHIFT = 12;
    private static final int PAGE_BITS = 1 << PAGE_SHIFT;
    private static final int PAGE_WORDS = PAGE_BITS / 64;
    /** Ranges up to this many pages keep a plain array of page references; larger ones a map. */
    private static final long MAX_DENSE_PAGES = 1 << 12;

    private static final class Page {
        final long[] words = new long[PAGE_WORDS];
        int used;
    }

    final IpRange range;
    final IpFamily family;
    /** Number of addresses, saturated at Long.MAX_VALUE; offsets 0..size-1 live in the bitset. */
    private final long size;

    private final boolean avoidBuggy;
    private final long firstHigh;
    private final long firstLow;
    private final Page[] dense;
    private final Map<Long, Page> sparse;
    private Set<IpAddress> far;
    private long hint;
    private long used;

    RangeState(IpRange range, boolean avoidBuggyIPs) {
        this.range = range;
        this.family = range.family();
        this.size = range.size();
        this.avoidBuggy = avoidBuggyIPs && family == IpFamily.IPv4;
        this.firstHigh = range.first().high();
        this.firstLow = range.first().low();
        long pages = (size >>> PAGE_SHIFT) + 1;
        if (pages <= MAX_DENSE_PAGES) {
            dense = new Page[(int) pages];
            sparse = null;
        } else {
            dense = null;
            sparse = new HashMap<>();
        }
    }

    long used() {
        return used;
    }

    boolean contains(IpAddress ip) {
        return range.contains(ip);
    }

    private boolean forbidden(long offset) {
        if (!avoidBuggy) {
            return false;
        }
        long last = (firstLow + offset) & 0xff;
        return last == 0 || last == 0xff;
    }

    private long offsetOf(IpAddress ip) {
        if (family == IpFamily.IPv4) {
            return ip.low() - firstLow;
        }
        long distance = ip.distanceFrom(range.first());
        return distance == Long.MAX_VALUE ? -1 : distance;
    }

    IpAddress at(long offset) {
        if (family == IpFamily.IPv4) {
            return IpAddress.v4(firstLow + offset);
        }
        long low = firstLow + offset;
        long high = Long.compareUnsigned(low, firstLow) < 0 ? firstHigh + 1 : firstHigh;
        return new IpAddress(IpFamily.IPv6, high, low);
    }

    private Page page(long index) {
        return dense != null ? dense[(int) index] : sparse.get(index);
    }

    private Page pageForWrite(long index) {
        if (dense != null) {
            Page p = dense[(int) index];
            if (p == null) {
                p = new Page();
                dense[(int) index] = p;
            }
            return p;
        }
        return sparse.computeIfAbsent(index, _ -> new Page());
    }

    /** Marks the address used; returns false if it already was. */
    boolean mark(IpAddress ip) {
        long offset = offsetOf(ip);
        if (offset < 0) {
            if (far == null) {
                far = new HashSet<>();
            }
            boolean added = far.add(ip);
            if (added) {
                used++;
            }
            return added;
        }
        Page p = pageForWrite(offset >>> PAGE_SHIFT);
        int bit = (int) (offset & (PAGE_BITS - 1));
        long mask = 1L << bit;
        if ((p.words[bit >>> 6] & mask) != 0) {
            return false;
        }
        p.words[bit >>> 6] |= mask;
        p.used++;
        used++;
        if (offset == hint) {
            hint++;
        }
        return true;
    }

    /** Marks the address free; returns false if it already was. */
    boolean clear(IpAddress ip) {
        long offset = offsetOf(ip);
        if (offset < 0) {
            boolean removed = far != null && far.remove(ip);
            if (removed) {
                used--;
            }
            return removed;
        }
        long index = offset >>> PAGE_SHIFT;
        Page p = page(index);
        int bit = (int) (offset & (PAGE_BITS - 1));
        long mask = 1L << bit;
        if (p == null || (p.words[bit >>> 6] & mask) == 0) {
            return false;
        }
        p.words[bit >>> 6] &= ~mask;
        p.used--;
        used--;
        if (p.used == 0 && sparse != null) {
            sparse.remove(index);
        }
        if (offset < hint) {
            hint = offset;
        }
        return true;
    }

    /** The lowest free, allowed address, or null when the range is full. */
    IpAddress lowestFree() {
        long h = hint;
        while (h >= 0 && h < size) {
            long index = h >>> PAGE_SHIFT;
            Page p = page(index);
            long pageStart = index << PAGE_SHIFT;
            if (p == null) {
                if (!forbidden(h)) {
                    hint = h;
                    return at(h);
                }
                h++;
                continue;
            }
            if (p.used < PAGE_BITS) {
                int bit = (int) (h - pageStart);
                int wi = bit >>> 6;
                long w = ~p.words[wi] & (-1L << (bit & 63));
                while (true) {
                    if (w != 0) {
                        long candidate = pageStart + ((long) wi << 6) + Long.numberOfTrailingZeros(w);
                        if (candidate >= size) {
                            hint = size;
                            return null;
                        }
                        if (!forbidden(candidate)) {
                            hint = candidate;
                            return at(candidate);
                        }
                        w &= w - 1;
                        continue;
                    }
                    if (++wi == PAGE_WORDS) {
                        break;
                    }
                    w = ~p.words[wi];
                }
            }
            h = pageStart + PAGE_BITS;
        }
        hint = size;
        return null;
    }
}

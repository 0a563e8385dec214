package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;

/**
 * Reuses IpAddress instances for the addresses seen recently, so that the receive loop does not allocate one per
 * request: the same few VIPs are asked for over and over. Direct-mapped, one per thread, no locking.
 */
final class AddressCache {

    private static final int SLOTS = 256;
    private final IpAddress[] slots = new IpAddress[SLOTS];

    IpAddress v4(int value) {
        long low = value & 0xffff_ffffL;
        int slot = index(low);
        IpAddress cached = slots[slot];
        if (cached != null && cached.isV4() && cached.low() == low) {
            return cached;
        }
        IpAddress fresh = IpAddress.v4(low);
        slots[slot] = fresh;
        return fresh;
    }

    IpAddress v6(long high, long low) {
        int slot = index(low ^ high);
        IpAddress cached = slots[slot];
        if (cached != null && !cached.isV4() && cached.low() == low && cached.high() == high) {
            return cached;
        }
        IpAddress fresh = new IpAddress(IpFamily.IPv6, high, low);
        slots[slot] = fresh;
        return fresh;
    }

    private static int index(long value) {
        return (int) ((value * 0x9E37_79B9_7F4A_7C15L) >>> 56) & (SLOTS - 1);
    }
}

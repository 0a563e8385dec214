package io.lbk8s.net.frame;

import static io.lbk8s.net.frame.Wire.u16;
import static io.lbk8s.net.frame.Wire.u8;

import java.lang.foreign.MemorySegment;

/**
 * The ICMPv6 checksum (RFC 4443 section 2.3): the one's complement of the one's-complement sum over the IPv6
 * pseudo-header (source, destination, upper-layer length, next header 58) and the ICMPv6 message. The kernel drops
 * neighbor advertisements with a wrong checksum silently, so this is worth testing against captured frames.
 */
public final class Icmpv6Checksum {

    static final int CHECKSUM_FIELD = 2;

    private Icmpv6Checksum() {}

    /**
     * The checksum of the ICMPv6 message that follows the IPv6 header at {@code ipv6Offset} (no extension headers),
     * its length taken from the header's payload length. The checksum field itself is left out of the sum, so
     * whatever it holds does not matter.
     */
    public static int compute(MemorySegment frame, long ipv6Offset) {
        int icmpLength = u16(frame, ipv6Offset + 4);
        long icmp = ipv6Offset + 40;
        long sum = 0;
        for (long i = ipv6Offset + 8; i < icmp; i += 2) {
            sum += u16(frame, i); // source and destination addresses
        }
        sum += icmpLength; // upper-layer packet length, 32 bits, high half zero for anything that fits a frame
        sum += 58;
        long end = icmp + icmpLength;
        for (long i = icmp; i + 1 < end; i += 2) {
            if (i != icmp + CHECKSUM_FIELD) {
                sum += u16(frame, i);
            }
        }
        if ((icmpLength & 1) != 0) {
            sum += u8(frame, end - 1) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int) (~sum & 0xffff);
    }

    /** Whether the stored checksum matches; 0x0000 and 0xffff are the same number in one's complement. */
    public static boolean verify(MemorySegment frame, long ipv6Offset) {
        int stored = u16(frame, ipv6Offset + 40 + CHECKSUM_FIELD);
        int computed = compute(frame, ipv6Offset);
        return stored == computed || stored == 0xffff && computed == 0 || stored == 0 && computed == 0xffff;
    }

    /** Computes and stores the checksum. */
    public static void fill(MemorySegment frame, long ipv6Offset) {
        Wire.putU16(frame, ipv6Offset + 40 + CHECKSUM_FIELD, compute(frame, ipv6Offset));
    }
}

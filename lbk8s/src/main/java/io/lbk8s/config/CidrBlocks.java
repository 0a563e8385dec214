package io.lbk8s.config;

import io.lbk8s.address.IpRange;
import java.math.BigInteger;

/** A range as the CIDR blocks that exactly cover it (as MetalLB summarizes a range). Pure. */
final class CidrBlocks {
    private CidrBlocks() {}

    /** The shortest prefix length among the blocks that cover {@code range}: 24 for 10.0.0.0-10.0.0.255. */
    static int widestPrefix(IpRange range) {
        int bits = range.family().bits();
        BigInteger next = value(range.first().toBytes());
        BigInteger last = value(range.last().toBytes());
        int widest = bits;
        while (next.compareTo(last) <= 0) {
            // the largest block that starts at next (aligned) and does not pass last
            int size = next.signum() == 0 ? bits : Math.min(next.getLowestSetBit(), bits);
            while (next.add(BigInteger.ONE.shiftLeft(size))
                            .subtract(BigInteger.ONE)
                            .compareTo(last)
                    > 0) {
                size--;
            }
            widest = Math.min(widest, bits - size);
            next = next.add(BigInteger.ONE.shiftLeft(size));
        }
        return widest;
    }

    private static BigInteger value(byte[] address) {
        return new BigInteger(1, address);
    }
}

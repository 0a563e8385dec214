package io.lbk8s.net.link;

import io.lbk8s.address.IpAddress;

/** An address configured on an interface with its prefix, as in {@code 198.18.99.1/24}. */
public record LinkAddress(IpAddress address, int prefixLength) {

    public LinkAddress {
        if (prefixLength < 0 || prefixLength > address.family().bits()) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " for " + address);
        }
    }

    /** Whether {@code ip} is of the same family and inside this address's prefix. */
    public boolean contains(IpAddress ip) {
        if (ip.family() != address.family()) {
            return false;
        }
        if (address.isV4()) {
            return prefixMatches(ip.low(), address.low(), prefixLength, 32);
        }
        if (prefixLength <= 64) {
            return prefixMatches(ip.high(), address.high(), prefixLength, 64);
        }
        return ip.high() == address.high() && prefixMatches(ip.low(), address.low(), prefixLength - 64, 64);
    }

    private static boolean prefixMatches(long a, long b, int prefix, int width) {
        if (prefix == 0) {
            return true;
        }
        long mask = -1L << (width - prefix); // prefix ≥ 1, so the shift is < 64
        if (width == 32) {
            mask &= 0xffff_ffffL;
        }
        return (a & mask) == (b & mask);
    }

    @Override
    public String toString() {
        return address + "/" + prefixLength;
    }
}

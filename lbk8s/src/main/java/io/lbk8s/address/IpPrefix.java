package io.lbk8s.address;

import java.math.BigInteger;
import java.util.Optional;

/**
 * An address with a prefix length: an interface's address as {@code ip addr} shows it ({@code 172.18.0.2/16}), or a
 * network ({@code 10.5.0.0/24}). The address is kept as written; {@link #network()} and {@link #last()} are the
 * prefix's first and last addresses.
 */
public record IpPrefix(IpAddress address, int length) {
    public IpPrefix {
        if (length < 0 || length > address.family().bits()) {
            throw new IllegalArgumentException("prefix length /" + length + " is out of 0-"
                    + address.family().bits() + " for " + address);
        }
    }

    /** Parses {@code 10.5.0.7/24} or {@code fd00::2/64}; empty when the text is not one. */
    public static Optional<IpPrefix> parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0 || !text.substring(slash + 1).matches("0|[1-9]\\d{0,2}")) {
            return Optional.empty();
        }
        int length = Integer.parseInt(text.substring(slash + 1));
        return IpAddress.parse(text.substring(0, slash))
                .filter(a -> length <= a.family().bits())
                .map(a -> new IpPrefix(a, length));
    }

    /** The network of {@code length} that holds {@code ip}, written with its network address. */
    public static IpPrefix around(IpAddress ip, int length) {
        return new IpPrefix(ip, length).canonical();
    }

    /** This prefix written with its network address: {@code 10.5.0.0/24} for {@code 10.5.0.7/24}. */
    public IpPrefix canonical() {
        return new IpPrefix(network(), length);
    }

    public IpFamily family() {
        return address.family();
    }

    /** The first address of the prefix. */
    public IpAddress network() {
        return withHostBits(false);
    }

    /** The last address of the prefix (IPv4's broadcast address). */
    public IpAddress last() {
        return withHostBits(true);
    }

    public boolean contains(IpAddress ip) {
        return ip.family() == family() && ip.compareTo(network()) >= 0 && ip.compareTo(last()) <= 0;
    }

    /** How many addresses the prefix holds (2^128 for {@code ::/0}, hence not a long). */
    public BigInteger size() {
        return BigInteger.ONE.shiftLeft(family().bits() - length);
    }

    /** The address {@code offset} places after the network address. */
    public IpAddress at(BigInteger offset) {
        return fromBig(family(), toBig(network()).add(offset));
    }

    public BigInteger offsetOf(IpAddress ip) {
        return toBig(ip).subtract(toBig(network()));
    }

    private IpAddress withHostBits(boolean set) {
        int bits = family().bits();
        int hostBits = bits - length;
        long highMask = hostBits <= 64 ? 0 : hostBits >= 128 ? -1L : (1L << (hostBits - 64)) - 1;
        long lowMask = hostBits >= 64 ? -1L : (1L << hostBits) - 1;
        long high = set ? address.high() | highMask : address.high() & ~highMask;
        long low = set ? address.low() | lowMask : address.low() & ~lowMask;
        return new IpAddress(family(), high, bits == 32 ? low & 0xffff_ffffL : low);
    }

    private static BigInteger toBig(IpAddress ip) {
        return new BigInteger(1, ip.toBytes());
    }

    private static IpAddress fromBig(IpFamily family, BigInteger value) {
        int length = family.bits() / 8;
        byte[] raw = value.toByteArray();
        byte[] bytes = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, bytes, length - copy, copy);
        return IpAddress.ofBytes(bytes);
    }

    @Override
    public String toString() {
        return address + "/" + length;
    }
}

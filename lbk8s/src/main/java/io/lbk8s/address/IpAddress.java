package io.lbk8s.address;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;

/**
 * An IPv4 or IPv6 address as two unsigned 64-bit halves, so that ranges can be walked by arithmetic
 * without allocating. IPv4 lives in the low 32 bits of {@code low}; {@code high} is 0.
 */
public record IpAddress(IpFamily family, long high, long low) implements Comparable<IpAddress> {

    public IpAddress {
        if (family == IpFamily.IPv4 && (high != 0 || (low >>> 32) != 0)) {
            throw new IllegalArgumentException("IPv4 address out of range");
        }
    }

    public static IpAddress v4(long value) {
        return new IpAddress(IpFamily.IPv4, 0, value & 0xffff_ffffL);
    }

    private static final java.util.regex.Pattern DOTTED_QUAD =
            java.util.regex.Pattern.compile("(0|[1-9]\\d{0,2})(\\.(0|[1-9]\\d{0,2})){3}");

    /**
     * Parses a literal address; never resolves a host name. IPv4 octets with leading zeros ({@code 010.0.0.1}) are
     * refused, as Go (and so MetalLB) refuses them, because tools disagree on whether they are octal. An address
     * written in IPv6 notation stays IPv6, even an IPv4-mapped one ({@code ::ffff:10.0.0.1}).
     */
    public static Optional<IpAddress> parse(String text) {
        if (text == null
                || text.isEmpty()
                || text.strip().length() != text.length()
                || text.contains("%")
                || text.startsWith("[")) {
            return Optional.empty();
        }
        boolean looksV6 = text.indexOf(':') >= 0;
        if (!looksV6 && !DOTTED_QUAD.matcher(text).matches()) {
            return Optional.empty();
        }
        if (looksV6 && text.lastIndexOf('.') >= 0) {
            // an embedded dotted quad must be well-formed too
            String quad = text.substring(text.lastIndexOf(':') + 1);
            if (!DOTTED_QUAD.matcher(quad).matches()) {
                return Optional.empty();
            }
        }
        try {
            InetAddress address = InetAddress.ofLiteral(text);
            if (looksV6 && address instanceof Inet4Address) {
                // Java turns ::ffff:a.b.c.d into an Inet4Address; keep the family the user wrote
                IpAddress v4 = of(address);
                return Optional.of(new IpAddress(IpFamily.IPv6, 0, 0xffff_0000_0000L | v4.low()));
            }
            return Optional.of(of(address));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public static IpAddress of(InetAddress address) {
        byte[] b = address.getAddress();
        return switch (address) {
            case Inet4Address _ ->
                v4(((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL));
            case Inet6Address _ -> new IpAddress(IpFamily.IPv6, longAt(b, 0), longAt(b, 8));
            default -> throw new IllegalArgumentException("unknown address type " + address);
        };
    }

    public static IpAddress ofBytes(byte[] bytes) {
        return switch (bytes.length) {
            case 4 ->
                v4(((bytes[0] & 0xffL) << 24)
                        | ((bytes[1] & 0xffL) << 16)
                        | ((bytes[2] & 0xffL) << 8)
                        | (bytes[3] & 0xffL));
            case 16 -> new IpAddress(IpFamily.IPv6, longAt(bytes, 0), longAt(bytes, 8));
            default -> throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + bytes.length);
        };
    }

    private static long longAt(byte[] b, int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = (v << 8) | (b[i] & 0xffL);
        }
        return v;
    }

    public byte[] toBytes() {
        if (family == IpFamily.IPv4) {
            return new byte[] {(byte) (low >>> 24), (byte) (low >>> 16), (byte) (low >>> 8), (byte) low};
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (high >>> (56 - 8 * i));
            b[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        return b;
    }

    public boolean isV4() {
        return family == IpFamily.IPv4;
    }

    /** This address plus {@code n} (n ≥ 0), or empty when that leaves the family's address space. */
    public Optional<IpAddress> plus(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative step");
        }
        if (isV4()) {
            long v = low + n;
            return v > 0xffff_ffffL || v < 0 ? Optional.empty() : Optional.of(v4(v));
        }
        long newLow = low + n;
        long carry = Long.compareUnsigned(newLow, low) < 0 ? 1 : 0;
        long newHigh = high + carry;
        if (carry == 1 && high == -1L) {
            return Optional.empty();
        }
        return Optional.of(new IpAddress(family, newHigh, newLow));
    }

    /**
     * How far this address lies above {@code base}, saturated at {@link Long#MAX_VALUE}; both must be of one
     * family and this address must not be below base.
     */
    public long distanceFrom(IpAddress base) {
        if (family != base.family || compareTo(base) < 0) {
            throw new IllegalArgumentException(this + " is not at or above " + base);
        }
        long highDiff = high - base.high;
        long lowDiff = low - base.low;
        if (Long.compareUnsigned(low, base.low) < 0) {
            highDiff -= 1;
        }
        if (highDiff != 0 || lowDiff < 0) {
            return Long.MAX_VALUE;
        }
        return lowDiff;
    }

    /** The last byte, used by MetalLB's avoidBuggyIPs rule (.0 and .255). */
    public int lastByte() {
        return (int) (low & 0xff);
    }

    @Override
    public int compareTo(IpAddress other) {
        int byFamily = family.compareTo(other.family);
        if (byFamily != 0) {
            return byFamily;
        }
        int byHigh = Long.compareUnsigned(high, other.high);
        return byHigh != 0 ? byHigh : Long.compareUnsigned(low, other.low);
    }

    /**
     * Dotted quad for IPv4; RFC 5952 canonical text for IPv6 (lowercase, longest zero run compressed, the first of
     * equally long runs; IPv4-mapped addresses as {@code ::ffff:a.b.c.d}, RFC 5952 section 5).
     */
    @Override
    public String toString() {
        if (isV4()) {
            return dottedQuad(low);
        }
        if (high == 0 && (low >>> 32) == 0xffffL) {
            return "::ffff:" + dottedQuad(low & 0xffff_ffffL);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 4; i++) {
            groups[i] = (int) ((high >>> (48 - 16 * i)) & 0xffff);
            groups[4 + i] = (int) ((low >>> (48 - 16 * i)) & 0xffff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    private static String dottedQuad(long v) {
        return (v >>> 24) + "." + ((v >>> 16) & 0xff) + "." + ((v >>> 8) & 0xff) + "." + (v & 0xff);
    }
}

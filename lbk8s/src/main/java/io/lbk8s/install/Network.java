package io.lbk8s.install;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.math.BigInteger;
import java.util.Optional;

/** An IP network (a CIDR), with the arithmetic the range choice needs, in BigInteger for IPv6's sake. */
public record Network(IpAddress base, int prefix) {

    public Network {
        if (prefix < 0 || prefix > base.family().bits()) {
            throw new IllegalArgumentException("prefix /" + prefix + " out of range for " + base);
        }
        base = fromBig(base.family(), toBig(base).andNot(hostMask(base.family(), prefix)));
    }

    /** Parses {@code 10.5.0.0/24} or {@code fd00::/64}. */
    public static Optional<Network> parse(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        try {
            int prefix = Integer.parseInt(cidr.substring(slash + 1));
            return IpAddress.parse(cidr.substring(0, slash))
                    .filter(ip -> prefix >= 0 && prefix <= ip.family().bits())
                    .map(ip -> new Network(ip, prefix));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The network of the given prefix that holds {@code ip}. */
    public static Network around(IpAddress ip, int prefix) {
        return new Network(ip, prefix);
    }

    public IpFamily family() {
        return base.family();
    }

    public BigInteger size() {
        return BigInteger.ONE.shiftLeft(family().bits() - prefix);
    }

    public IpAddress last() {
        return fromBig(family(), toBig(base).or(hostMask(family(), prefix)));
    }

    public boolean contains(IpAddress ip) {
        return ip.family() == family() && base.compareTo(ip) <= 0 && ip.compareTo(last()) <= 0;
    }

    /** The address {@code offset} places after the network address. */
    public IpAddress at(BigInteger offset) {
        return fromBig(family(), toBig(base).add(offset));
    }

    public BigInteger offsetOf(IpAddress ip) {
        return toBig(ip).subtract(toBig(base));
    }

    @Override
    public String toString() {
        return base + "/" + prefix;
    }

    static BigInteger toBig(IpAddress ip) {
        return new BigInteger(1, ip.toBytes());
    }

    static IpAddress fromBig(IpFamily family, BigInteger value) {
        int length = family.bits() / 8;
        byte[] raw = value.toByteArray();
        byte[] bytes = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, bytes, length - copy, copy);
        return IpAddress.ofBytes(bytes);
    }

    private static BigInteger hostMask(IpFamily family, int prefix) {
        return BigInteger.ONE.shiftLeft(family.bits() - prefix).subtract(BigInteger.ONE);
    }

}

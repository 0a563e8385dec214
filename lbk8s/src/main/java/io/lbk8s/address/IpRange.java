package io.lbk8s.address;

import io.lbk8s.text.Quoted;
import java.util.Optional;

/**
 * An inclusive range of addresses of one family, as written in a pool: {@code 10.5.0.200-10.5.0.220},
 * {@code 192.0.2.10/32}, {@code fd00::/120}. {@code text} keeps what the user wrote, for messages.
 */
public record IpRange(IpAddress first, IpAddress last, String text) {

    public IpRange {
        if (first.family() != last.family()) {
            throw new IllegalArgumentException("range mixes families: " + text);
        }
        if (first.compareTo(last) > 0) {
            throw new IllegalArgumentException("range is reversed: " + text);
        }
    }

    public IpFamily family() {
        return first.family();
    }

    /** Number of addresses, saturated at {@link Long#MAX_VALUE}. */
    public long size() {
        long distance = last.distanceFrom(first);
        return distance == Long.MAX_VALUE ? Long.MAX_VALUE : distance + 1;
    }

    public boolean contains(IpAddress ip) {
        return ip.family() == family() && first.compareTo(ip) <= 0 && ip.compareTo(last) <= 0;
    }

    public boolean overlaps(IpRange other) {
        return family() == other.family() && first.compareTo(other.last) <= 0 && other.first.compareTo(last) <= 0;
    }

    /** The address {@code offset} places after {@code first}, if inside the range. */
    public Optional<IpAddress> at(long offset) {
        return first.plus(offset).filter(this::contains);
    }

    public long offsetOf(IpAddress ip) {
        if (!contains(ip)) {
            throw new IllegalArgumentException(ip + " is not in " + text);
        }
        return ip.distanceFrom(first);
    }

    /** A CIDR {@code base/prefix}; the base need not be the network address (MetalLB accepts that too). */
    public static IpRange cidr(IpAddress base, int prefix, String text) {
        int bits = base.family().bits();
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("prefix length /" + prefix + " is out of 0-" + bits + ": " + text);
        }
        IpPrefix block = new IpPrefix(base, prefix);
        return new IpRange(block.network(), block.last(), text);
    }

    /**
     * Parses one entry of a pool's {@code addresses}: a CIDR, a {@code first-last} range (spaces around the
     * dash allowed, as MetalLB allows), or a single address. A CIDR's base need not be its network address
     * ({@code 10.0.0.7/24} means {@code 10.0.0.0/24}, as in Go's {@code net.ParseCIDR}).
     *
     * <p>An {@link Parsed.Invalid} reason says what is wrong in words, relative to the entry (it does not repeat
     * the whole entry, which the caller quotes): {@code "10.0.0.300" is not an IP address}.
     */
    public static Parsed parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return new Parsed.Invalid("an empty string is not a CIDR, a range or an IP address");
        }
        String text = raw.strip();
        int dash = text.indexOf('-');
        if (dash >= 0) {
            String left = text.substring(0, dash).strip();
            String right = text.substring(dash + 1).strip();
            if (left.isEmpty() || right.isEmpty()) {
                return new Parsed.Invalid("a range needs an address on both sides of the \"-\"");
            }
            Optional<IpAddress> from = IpAddress.parse(left);
            Optional<IpAddress> to = IpAddress.parse(right);
            if (from.isEmpty()) {
                return new Parsed.Invalid(notAnAddress(left));
            }
            if (to.isEmpty()) {
                return new Parsed.Invalid(notAnAddress(right));
            }
            if (from.get().family() != to.get().family()) {
                return new Parsed.Invalid("the range mixes IPv4 and IPv6");
            }
            if (from.get().compareTo(to.get()) > 0) {
                return new Parsed.Invalid("the range is reversed: " + from.get() + " is above " + to.get());
            }
            return new Parsed.Valid(new IpRange(from.get(), to.get(), text));
        }
        int slash = text.indexOf('/');
        if (slash >= 0) {
            String addressPart = text.substring(0, slash);
            String prefixPart = text.substring(slash + 1);
            Optional<IpAddress> base = IpAddress.parse(addressPart);
            if (base.isEmpty()) {
                return new Parsed.Invalid(notAnAddress(addressPart));
            }
            if (!prefixPart.matches("0|[1-9]\\d{0,2}")) {
                return new Parsed.Invalid(Quoted.of(prefixPart) + " is not a prefix length");
            }
            int prefix = Integer.parseInt(prefixPart);
            int bits = base.get().family().bits();
            if (prefix > bits) {
                return new Parsed.Invalid("prefix length /" + prefix + " is longer than the " + bits + " bits of an "
                        + base.get().family() + " address");
            }
            return new Parsed.Valid(cidr(base.get(), prefix, text));
        }
        return IpAddress.parse(text)
                .<Parsed>map(ip -> new Parsed.Valid(new IpRange(ip, ip, text)))
                .orElseGet(() -> new Parsed.Invalid(Quoted.of(text) + " is not a CIDR, a range or an IP address"));
    }

    private static String notAnAddress(String text) {
        return Quoted.of(text) + " is not an IP address";
    }

    /** Whether this range is exactly one CIDR block written with host bits set, e.g. {@code 10.0.0.7/24}. */
    public boolean isCidrWithHostBits() {
        int slash = text.indexOf('/');
        if (slash < 0 || text.indexOf('-') >= 0) {
            return false;
        }
        return IpAddress.parse(text.substring(0, slash))
                .map(base -> !base.equals(first))
                .orElse(false);
    }

    /** The outcome of parsing one address entry. */
    public sealed interface Parsed {
        record Valid(IpRange range) implements Parsed {}

        record Invalid(String reason) implements Parsed {}
    }

    @Override
    public String toString() {
        return text;
    }
}

package io.lbk8s.config;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Address blocks that are never a host's address on a network, so never a Service's: from the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890), the entries whose addresses cannot be a unicast destination on a
 * link, plus multicast. A pool range that touches one is refused by {@link ConfigParser}.
 *
 * <p>Not listed, on purpose, because people do use them for hosts: private ranges (RFC 1918), shared address space
 * 100.64.0.0/10, the documentation ranges, benchmarking 198.18.0.0/15, 192.0.0.0/24, unique local fc00::/7, and
 * 240.0.0.0/4 ("reserved", but Linux routes it and some networks number hosts in it). Pure.
 */
public final class SpecialPurposeRanges {
    private SpecialPurposeRanges() {}

    /** One block, and what it is, in words. */
    public record Block(IpRange range, String what) {
        static Block of(String cidr, String what) {
            return new Block(((IpRange.Parsed.Valid) IpRange.parse(cidr)).range(), what);
        }
    }

    public static final List<Block> BLOCKS = List.of(
            Block.of("0.0.0.0/8", "\"this network\" (RFC 791), only ever a source address"),
            Block.of("127.0.0.0/8", "loopback (RFC 1122), never leaves a host"),
            Block.of("169.254.0.0/16", "link-local (RFC 3927), chosen by each host for itself"),
            Block.of("224.0.0.0/4", "multicast (RFC 5771), addresses groups, not a host"),
            Block.of("255.255.255.255/32", "the limited broadcast address (RFC 919), every host on the link"),
            Block.of("::/128", "the unspecified address (RFC 4291), only ever a source address"),
            Block.of("::1/128", "loopback (RFC 4291), never leaves a host"),
            Block.of(
                    "::ffff:0:0/96",
                    "IPv4-mapped (RFC 4291), an IPv4 address in IPv6 notation: write the IPv4 address"),
            Block.of("fe80::/10", "link-local (RFC 4291), chosen by each host for itself"),
            Block.of("ff00::/8", "multicast (RFC 4291), addresses groups, not a host"));

    /** A block the range touches, with the part of the range inside it. */
    public record Overlap(Block block, IpAddress first, IpAddress last) {
        /**
         * "127.0.0.0/8 (loopback ...)", and which addresses of the range lie in the block when that is neither the
         * whole range nor the whole block: what to cut from the range.
         */
        public String describe(IpRange range) {
            boolean wholeRange = first.equals(range.first()) && last.equals(range.last());
            boolean wholeBlock = first.equals(block.range().first())
                    && last.equals(block.range().last());
            String part = wholeRange || wholeBlock
                    ? ""
                    : " has " + (first.equals(last) ? first.toString() : first + "-" + last) + " of this range";
            return block.range().text() + " (" + block.what() + ")" + part;
        }
    }

    /** Every block the range touches, in the order of {@link #BLOCKS}. */
    public static List<Overlap> overlapping(IpRange range) {
        List<Overlap> found = new ArrayList<>();
        for (Block block : BLOCKS) {
            if (block.range().overlaps(range)) {
                found.add(new Overlap(
                        block,
                        max(block.range().first(), range.first()),
                        min(block.range().last(), range.last())));
            }
        }
        return found;
    }

    /**
     * Why the range is refused, relative to the entry (which the caller quotes), or empty when it touches no block:
     * {@code includes addresses that are never a host's, so never a Service's: 127.0.0.0/8 (loopback ...)}.
     */
    public static Optional<String> problem(IpRange range) {
        List<Overlap> found = overlapping(range);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("includes addresses that are never a host's, so never a Service's: "
                + found.stream().map(o -> o.describe(range)).collect(Collectors.joining("; ")));
    }

    private static IpAddress max(IpAddress a, IpAddress b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static IpAddress min(IpAddress a, IpAddress b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}

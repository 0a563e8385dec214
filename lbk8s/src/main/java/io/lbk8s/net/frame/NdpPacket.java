package io.lbk8s.net.frame;

import static io.lbk8s.net.frame.Wire.mac;
import static io.lbk8s.net.frame.Wire.putMac;
import static io.lbk8s.net.frame.Wire.putU16;
import static io.lbk8s.net.frame.Wire.putU32;
import static io.lbk8s.net.frame.Wire.putU64;
import static io.lbk8s.net.frame.Wire.putU8;
import static io.lbk8s.net.frame.Wire.u16;
import static io.lbk8s.net.frame.Wire.u64;
import static io.lbk8s.net.frame.Wire.u8;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * Neighbor Discovery (RFC 4861) over Ethernet: decoding Neighbor Solicitations and encoding Neighbor
 * Advertisements, and for {@link io.lbk8s.net.AddressProbe} the other way round (duplicate address detection probes
 * out, advertisements in). As with {@link ArpPacket}, the static methods work in place and allocate nothing; the nested
 * record is the readable form.
 *
 * <p>Only frames whose IPv6 header is followed directly by ICMPv6 are understood: NDP messages carry no extension
 * headers in practice, and RFC 4861 validity needs hop limit 255, which a router-crossing packet cannot have.
 */
public final class NdpPacket {

    public static final int ETHERTYPE = 0x86DD;
    public static final int NEXT_HEADER_ICMPV6 = 58;
    public static final int TYPE_NEIGHBOR_SOLICITATION = 135;
    public static final int TYPE_NEIGHBOR_ADVERTISEMENT = 136;
    /** Ethernet (14) + IPv6 (40) + NA (24) + target link-layer address option (8). */
    public static final int ADVERTISEMENT_LENGTH = 86;
    /** Ethernet (14) + IPv6 (40) + NS (24), no options. */
    public static final int DUPLICATE_ADDRESS_PROBE_LENGTH = 78;

    public static final int FLAG_ROUTER = 0x8000_0000;
    public static final int FLAG_SOLICITED = 0x4000_0000;
    public static final int FLAG_OVERRIDE = 0x2000_0000;

    static final int IPV6 = Wire.ETHERNET_HEADER;
    static final int PAYLOAD_LENGTH = IPV6 + 4;
    public static final int NEXT_HEADER = IPV6 + 6;
    public static final int HOP_LIMIT = IPV6 + 7;
    public static final int SOURCE = IPV6 + 8;
    static final int DESTINATION = IPV6 + 24;
    public static final int ICMP = IPV6 + 40;
    public static final int TARGET = ICMP + 8;
    static final int OPTIONS = ICMP + 24;
    static final int MIN_SOLICITATION = OPTIONS;

    private static final int OPTION_SOURCE_LINK_LAYER = 1;
    private static final int OPTION_TARGET_LINK_LAYER = 2;
    private static final long ALL_NODES_HIGH = 0xff02_0000_0000_0000L;
    private static final long ALL_NODES_LOW = 1;

    /** Why a frame was refused as a Neighbor Solicitation or Advertisement; {@code OK} when it is a valid one. */
    public enum Verdict {
        OK,
        TOO_SHORT,
        NOT_IPV6,
        NOT_ICMPV6,
        BAD_PAYLOAD_LENGTH,
        HOP_LIMIT_NOT_255,
        NOT_NEIGHBOR_SOLICITATION,
        NOT_NEIGHBOR_ADVERTISEMENT,
        BAD_CODE,
        BAD_CHECKSUM,
        BAD_OPTION_LENGTH,
        MULTICAST_TARGET,
        UNSPECIFIED_SOURCE_WITH_LINK_LAYER_OPTION,
        UNSPECIFIED_SOURCE_NOT_TO_SOLICITED_NODE,
        SOLICITED_TO_MULTICAST
    }

    /** A decoded Neighbor Solicitation. */
    public record NeighborSolicitation(
            MacAddress ethernetDestination,
            MacAddress ethernetSource,
            IpAddress source,
            IpAddress destination,
            int hopLimit,
            IpAddress target,
            Optional<MacAddress> sourceLinkLayerAddress) {

        /** A solicitation from the unspecified address is duplicate address detection (RFC 4862). */
        public boolean isDuplicateAddressDetection() {
            return source.high() == 0 && source.low() == 0;
        }
    }

    private NdpPacket() {}

    /** The validity checks of RFC 4861 section 7.1.1, without allocating. */
    public static Verdict checkSolicitation(MemorySegment frame, int length) {
        Verdict verdict =
                checkNeighborMessage(frame, length, TYPE_NEIGHBOR_SOLICITATION, Verdict.NOT_NEIGHBOR_SOLICITATION);
        if (verdict != Verdict.OK || !isUnspecifiedSource(frame)) {
            return verdict;
        }
        if (hasOption(frame, OPTION_SOURCE_LINK_LAYER)) {
            return Verdict.UNSPECIFIED_SOURCE_WITH_LINK_LAYER_OPTION;
        }
        if (u64(frame, DESTINATION) != 0xff02_0000_0000_0000L
                || (u64(frame, DESTINATION + 8) & 0xffff_ffff_ff00_0000L) != 0x0000_0001_ff00_0000L) {
            return Verdict.UNSPECIFIED_SOURCE_NOT_TO_SOLICITED_NODE;
        }
        return Verdict.OK;
    }

    /** The validity checks of RFC 4861 section 7.1.2 for a Neighbor Advertisement, without allocating. */
    public static Verdict checkAdvertisement(MemorySegment frame, int length) {
        Verdict verdict =
                checkNeighborMessage(frame, length, TYPE_NEIGHBOR_ADVERTISEMENT, Verdict.NOT_NEIGHBOR_ADVERTISEMENT);
        if (verdict == Verdict.OK
                && u8(frame, DESTINATION) == 0xff
                && (Wire.i32(frame, ICMP + 4) & FLAG_SOLICITED) != 0) {
            return Verdict.SOLICITED_TO_MULTICAST;
        }
        return verdict;
    }

    /** What solicitations and advertisements share: IPv6 header, ICMPv6 type and code, length, checksum, options. */
    private static Verdict checkNeighborMessage(MemorySegment frame, int length, int type, Verdict wrongType) {
        int usable = Wire.usable(frame, length);
        if (usable < ICMP + 4) {
            return Verdict.TOO_SHORT;
        }
        if (u16(frame, Wire.ETHERTYPE_OFFSET) != ETHERTYPE || (u8(frame, IPV6) >>> 4) != 6) {
            return Verdict.NOT_IPV6;
        }
        if (u8(frame, NEXT_HEADER) != NEXT_HEADER_ICMPV6) {
            return Verdict.NOT_ICMPV6;
        }
        int icmpLength = u16(frame, PAYLOAD_LENGTH);
        if (icmpLength < 4 || ICMP + icmpLength > usable) {
            return Verdict.BAD_PAYLOAD_LENGTH;
        }
        if (u8(frame, HOP_LIMIT) != 255) {
            return Verdict.HOP_LIMIT_NOT_255;
        }
        if (u8(frame, ICMP) != type) {
            return wrongType;
        }
        if (u8(frame, ICMP + 1) != 0) {
            return Verdict.BAD_CODE;
        }
        if (icmpLength < MIN_SOLICITATION - ICMP) { // an advertisement has the same 24 bytes before its options
            return Verdict.BAD_PAYLOAD_LENGTH;
        }
        if (!Icmpv6Checksum.verify(frame, IPV6)) {
            return Verdict.BAD_CHECKSUM;
        }
        if (u8(frame, TARGET) == 0xff) {
            return Verdict.MULTICAST_TARGET;
        }
        long end = ICMP + icmpLength;
        for (long option = OPTIONS; option < end; ) {
            if (option + 2 > end) {
                return Verdict.BAD_OPTION_LENGTH;
            }
            int units = u8(frame, option + 1);
            if (units == 0 || option + units * 8L > end) {
                return Verdict.BAD_OPTION_LENGTH;
            }
            option += units * 8L;
        }
        return Verdict.OK;
    }

    /** Whether a checked message carries an option of {@code type}, whatever its length. */
    private static boolean hasOption(MemorySegment frame, int type) {
        long end = ICMP + u16(frame, PAYLOAD_LENGTH);
        for (long option = OPTIONS; option < end; option += u8(frame, option + 1) * 8L) {
            if (u8(frame, option) == type) {
                return true;
            }
        }
        return false;
    }

    public static Optional<NeighborSolicitation> decodeSolicitation(MemorySegment frame, int length) {
        if (checkSolicitation(frame, length) != Verdict.OK) {
            return Optional.empty();
        }
        long linkLayer = sourceLinkLayerAddress(frame);
        return Optional.of(new NeighborSolicitation(
                new MacAddress(mac(frame, 0)),
                new MacAddress(ethernetSource(frame)),
                v6(frame, SOURCE),
                v6(frame, DESTINATION),
                u8(frame, HOP_LIMIT),
                v6(frame, TARGET),
                linkLayer < 0 ? Optional.empty() : Optional.of(new MacAddress(linkLayer))));
    }

    // In-place accessors; valid only on a frame that passed checkSolicitation().

    public static long ethernetDestination(MemorySegment frame) {
        return mac(frame, 0);
    }

    public static long ethernetSource(MemorySegment frame) {
        return mac(frame, 6);
    }

    public static long targetHigh(MemorySegment frame) {
        return u64(frame, TARGET);
    }

    public static long targetLow(MemorySegment frame) {
        return u64(frame, TARGET + 8);
    }

    public static boolean isUnspecifiedSource(MemorySegment frame) {
        return u64(frame, SOURCE) == 0 && u64(frame, SOURCE + 8) == 0;
    }

    /** The Ethernet address of the source link-layer address option, or -1 when there is none. */
    public static long sourceLinkLayerAddress(MemorySegment frame) {
        return linkLayerOption(frame, OPTION_SOURCE_LINK_LAYER);
    }

    /** The Ethernet address of an advertisement's target link-layer address option, or -1 when there is none. */
    public static long targetLinkLayerAddress(MemorySegment frame) {
        return linkLayerOption(frame, OPTION_TARGET_LINK_LAYER);
    }

    private static long linkLayerOption(MemorySegment frame, int type) {
        long end = ICMP + u16(frame, PAYLOAD_LENGTH);
        for (long option = OPTIONS; option + 8 <= end; ) {
            int units = u8(frame, option + 1);
            if (units == 0) {
                return -1;
            }
            if (u8(frame, option) == type && units == 1) {
                return mac(frame, option + 2);
            }
            option += units * 8L;
        }
        return -1;
    }

    /**
     * Writes the advertisement answering a checked solicitation, from the solicitation's fields in place. Normally
     * it goes back to the soliciter (IPv6 destination = its source, Ethernet destination = its source link-layer
     * option, else its Ethernet source) with flags Solicited + Override. For duplicate address detection (source
     * ::) RFC 4861 section 7.2.4 says: to ff02::1 with Solicited clear, so that is done.
     */
    public static int encodeSolicitedAdvertisement(MemorySegment out, MemorySegment solicitation, MacAddress ourMac) {
        long targetHigh = targetHigh(solicitation);
        long targetLow = targetLow(solicitation);
        if (isUnspecifiedSource(solicitation)) {
            return advertiseToAllNodes(out, ourMac, targetHigh, targetLow);
        }
        long linkLayer = sourceLinkLayerAddress(solicitation);
        long ethDestination = linkLayer >= 0 ? linkLayer : ethernetSource(solicitation);
        return advertiseToSoliciter(
                out,
                ourMac,
                ethDestination,
                u64(solicitation, SOURCE),
                u64(solicitation, SOURCE + 8),
                targetHigh,
                targetLow);
    }

    /** The same answer from a decoded solicitation. */
    public static int encodeSolicitedAdvertisement(MemorySegment out, NeighborSolicitation ns, MacAddress ourMac) {
        IpAddress target = ns.target();
        if (ns.isDuplicateAddressDetection()) {
            return advertiseToAllNodes(out, ourMac, target.high(), target.low());
        }
        long ethDestination =
                ns.sourceLinkLayerAddress().orElse(ns.ethernetSource()).bits();
        return advertiseToSoliciter(
                out, ourMac, ethDestination, ns.source().high(), ns.source().low(), target.high(), target.low());
    }

    /** An unsolicited advertisement (RFC 4861 section 7.2.6): to ff02::1, Override set, Solicited clear. */
    public static int encodeUnsolicitedAdvertisement(MemorySegment out, IpAddress target, MacAddress ourMac) {
        requireV6(target);
        return advertiseToAllNodes(out, ourMac, target.high(), target.low());
    }

    /** To ff02::1 with Override set and Solicited clear: unsolicited, or the answer to duplicate address detection. */
    private static int advertiseToAllNodes(MemorySegment out, MacAddress ourMac, long targetHigh, long targetLow) {
        return writeAdvertisement(
                out,
                MacAddress.ALL_NODES.bits(),
                ourMac.bits(),
                ALL_NODES_HIGH,
                ALL_NODES_LOW,
                targetHigh,
                targetLow,
                FLAG_OVERRIDE);
    }

    /** Back to the soliciter's address and Ethernet address, with Solicited and Override set. */
    private static int advertiseToSoliciter(
            MemorySegment out,
            MacAddress ourMac,
            long ethDestination,
            long soliciterHigh,
            long soliciterLow,
            long targetHigh,
            long targetLow) {
        return writeAdvertisement(
                out,
                ethDestination,
                ourMac.bits(),
                soliciterHigh,
                soliciterLow,
                targetHigh,
                targetLow,
                FLAG_SOLICITED | FLAG_OVERRIDE);
    }

    /**
     * A duplicate address detection probe for {@code target} (RFC 4862 section 5.4.2): a solicitation from the
     * unspecified address to the target's solicited-node group and MAC, hop limit 255, without options (a source
     * link-layer option is forbidden from ::, and lbk8s sends no nonce). A host that has the address answers with an
     * advertisement to ff02::1; one that probes for it at the same time sends the same probe.
     */
    public static int encodeDuplicateAddressProbe(MemorySegment out, IpAddress target, MacAddress ourMac) {
        requireV6(target);
        IpAddress group = MacAddress.solicitedNodeGroup(target);
        putMac(out, 0, MacAddress.solicitedNodeMulticastBits(target.low()));
        putMac(out, 6, ourMac.bits());
        putU16(out, Wire.ETHERTYPE_OFFSET, ETHERTYPE);
        putU32(out, IPV6, 0x6000_0000);
        putU16(out, PAYLOAD_LENGTH, DUPLICATE_ADDRESS_PROBE_LENGTH - ICMP);
        putU8(out, NEXT_HEADER, NEXT_HEADER_ICMPV6);
        putU8(out, HOP_LIMIT, 255);
        putU64(out, SOURCE, 0);
        putU64(out, SOURCE + 8, 0);
        putU64(out, DESTINATION, group.high());
        putU64(out, DESTINATION + 8, group.low());
        putU8(out, ICMP, TYPE_NEIGHBOR_SOLICITATION);
        putU8(out, ICMP + 1, 0);
        putU16(out, ICMP + Icmpv6Checksum.CHECKSUM_FIELD, 0);
        putU32(out, ICMP + 4, 0);
        putU64(out, TARGET, target.high());
        putU64(out, TARGET + 8, target.low());
        Icmpv6Checksum.fill(out, IPV6);
        return DUPLICATE_ADDRESS_PROBE_LENGTH;
    }

    /**
     * The whole advertisement frame. The IPv6 source is the target address itself: ndisc6 ignores an NA whose
     * source differs from the target, and the kernel does the same for its own addresses. Traffic class and flow
     * label are zero, as in the kernel's advertisements.
     */
    static int writeAdvertisement(
            MemorySegment out,
            long ethDestination,
            long ourMac,
            long destinationHigh,
            long destinationLow,
            long targetHigh,
            long targetLow,
            int flags) {
        putMac(out, 0, ethDestination);
        putMac(out, 6, ourMac);
        putU16(out, Wire.ETHERTYPE_OFFSET, ETHERTYPE);
        putU32(out, IPV6, 0x6000_0000);
        putU16(out, PAYLOAD_LENGTH, 32);
        putU8(out, NEXT_HEADER, NEXT_HEADER_ICMPV6);
        putU8(out, HOP_LIMIT, 255); // RFC 4861: receivers drop anything else
        putU64(out, SOURCE, targetHigh);
        putU64(out, SOURCE + 8, targetLow);
        putU64(out, DESTINATION, destinationHigh);
        putU64(out, DESTINATION + 8, destinationLow);
        putU8(out, ICMP, TYPE_NEIGHBOR_ADVERTISEMENT);
        putU8(out, ICMP + 1, 0);
        putU16(out, ICMP + Icmpv6Checksum.CHECKSUM_FIELD, 0);
        putU32(out, ICMP + 4, flags);
        putU64(out, TARGET, targetHigh);
        putU64(out, TARGET + 8, targetLow);
        putU8(out, OPTIONS, OPTION_TARGET_LINK_LAYER);
        putU8(out, OPTIONS + 1, 1);
        putMac(out, OPTIONS + 2, ourMac);
        Icmpv6Checksum.fill(out, IPV6);
        return ADVERTISEMENT_LENGTH;
    }

    private static IpAddress v6(MemorySegment frame, long offset) {
        return new IpAddress(IpFamily.IPv6, u64(frame, offset), u64(frame, offset + 8));
    }

    private static void requireV6(IpAddress ip) {
        if (ip.isV4()) {
            throw new IllegalArgumentException("NDP carries IPv6 addresses only, not " + ip);
        }
    }
}

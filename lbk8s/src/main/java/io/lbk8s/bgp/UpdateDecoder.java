package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Reads an UPDATE and checks it as RFC 4271 6.3 asks, with the error codes it names. */
final class UpdateDecoder {
    private static final Set<Integer> WELL_KNOWN = Set.of(1, 2, 3, 5, 6);
    private static final Set<Integer> KNOWN_OPTIONAL = Set.of(4, 8, 14, 15, 32);

    private UpdateDecoder() {}

    static Message.Update decode(ByteBuffer body, boolean fourOctetAs) throws Malformed {
        int withdrawnLength = body.getShort() & 0xFFFF;
        if (withdrawnLength > body.remaining() - 2) {
            throw new Malformed(3, 1, "an UPDATE whose withdrawn routes overrun the message");
        }
        List<IpPrefix> withdrawn = MessageDecoder.prefixes(slice(body, withdrawnLength), IpFamily.IPv4, 3, 1);
        int attributesLength = body.getShort() & 0xFFFF;
        if (attributesLength > body.remaining()) {
            throw new Malformed(3, 1, "an UPDATE whose path attributes overrun the message");
        }
        List<PathAttribute> attributes = attributes(slice(body, attributesLength), fourOctetAs);
        List<IpPrefix> nlri = MessageDecoder.prefixes(body, IpFamily.IPv4, 3, 10);
        boolean announces = !nlri.isEmpty() || attributes.stream().anyMatch(a -> a instanceof PathAttribute.MpReach);
        if (announces) {
            requirePresent(attributes, 1, "ORIGIN");
            requirePresent(attributes, 2, "AS_PATH");
        }
        if (!nlri.isEmpty()) {
            requirePresent(attributes, 3, "NEXT_HOP");
        }
        return new Message.Update(withdrawn, attributes, nlri);
    }

    private static void requirePresent(List<PathAttribute> attributes, int typeCode, String name) throws Malformed {
        if (attributes.stream().noneMatch(a -> a.typeCode() == typeCode)) {
            throw new Malformed(3, 3, new Octets(new byte[] {(byte) typeCode}), "an UPDATE without " + name);
        }
    }

    private static ByteBuffer slice(ByteBuffer in, int length) {
        ByteBuffer part = in.slice(in.position(), length);
        in.position(in.position() + length);
        return part;
    }

    private static List<PathAttribute> attributes(ByteBuffer in, boolean fourOctetAs) throws Malformed {
        List<PathAttribute> attributes = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        while (in.hasRemaining()) {
            int start = in.position();
            if (in.remaining() < 3) {
                throw new Malformed(3, 1, "an UPDATE with a truncated path attribute");
            }
            int flags = in.get() & 0xFF;
            int type = in.get() & 0xFF;
            boolean extended = (flags & PathAttribute.EXTENDED_LENGTH) != 0;
            if (extended && in.remaining() < 2) {
                throw new Malformed(3, 1, "an UPDATE with a truncated path attribute");
            }
            int length = extended ? in.getShort() & 0xFFFF : in.get() & 0xFF;
            if (length > in.remaining()) {
                throw new Malformed(3, 1, "an UPDATE whose attribute " + type + " overruns the attributes");
            }
            ByteBuffer value = slice(in, length);
            Octets whole = octets(in.slice(start, in.position() - start));
            if (!seen.add(type)) {
                throw new Malformed(3, 1, "an UPDATE with attribute " + type + " twice");
            }
            checkFlags(flags, type, whole);
            attributes.add(attribute(flags, type, value, whole, fourOctetAs));
        }
        return attributes;
    }

    private static void checkFlags(int flags, int type, Octets whole) throws Malformed {
        boolean optional = (flags & PathAttribute.OPTIONAL) != 0;
        boolean transitive = (flags & PathAttribute.TRANSITIVE) != 0;
        if (WELL_KNOWN.contains(type) && (optional || !transitive)) {
            throw new Malformed(3, 4, whole, "an UPDATE whose well-known attribute " + type + " has wrong flags");
        }
        if (KNOWN_OPTIONAL.contains(type) && !optional) {
            throw new Malformed(3, 4, whole, "an UPDATE whose optional attribute " + type + " has wrong flags");
        }
        if (!optional && !WELL_KNOWN.contains(type)) {
            throw new Malformed(3, 2, whole, "an UPDATE with unrecognized well-known attribute " + type);
        }
    }

    private static PathAttribute attribute(int flags, int type, ByteBuffer value, Octets whole, boolean fourOctetAs)
            throws Malformed {
        int length = value.remaining();
        return switch (type) {
            case 1 -> {
                requireLength(length == 1, type, whole);
                int origin = value.get() & 0xFF;
                if (origin > 2) {
                    throw new Malformed(3, 6, whole, "an UPDATE with ORIGIN " + origin);
                }
                yield new PathAttribute.Origin(origin);
            }
            case 2 -> new PathAttribute.AsPath(asPath(value, fourOctetAs ? 4 : 2));
            case 3 -> {
                requireLength(length == 4, type, whole);
                yield new PathAttribute.NextHop(address(value, 4));
            }
            case 4 -> {
                requireLength(length == 4, type, whole);
                yield new PathAttribute.MultiExitDisc(value.getInt() & 0xFFFF_FFFFL);
            }
            case 5 -> {
                requireLength(length == 4, type, whole);
                yield new PathAttribute.LocalPref(value.getInt() & 0xFFFF_FFFFL);
            }
            case 8 -> {
                requireLength(length % 4 == 0, type, whole);
                List<Community.Standard> values = new ArrayList<>();
                while (value.hasRemaining()) {
                    values.add(new Community.Standard(value.getShort() & 0xFFFF, value.getShort() & 0xFFFF));
                }
                yield new PathAttribute.Communities(values);
            }
            case 32 -> {
                requireLength(length % 12 == 0, type, whole);
                List<Community.Large> values = new ArrayList<>();
                while (value.hasRemaining()) {
                    values.add(new Community.Large(unsigned(value), unsigned(value), unsigned(value)));
                }
                yield new PathAttribute.LargeCommunities(values);
            }
            case 14 -> mpReach(flags, value, whole);
            case 15 -> mpUnreach(flags, value, whole);
            default -> new PathAttribute.Other(flags, type, octets(value));
        };
    }

    private static PathAttribute mpReach(int flags, ByteBuffer value, Octets whole) throws Malformed {
        requireLength(value.remaining() >= 5, 14, whole);
        Optional<Family> family = Family.of(value.getShort() & 0xFFFF, value.get() & 0xFF);
        if (family.isEmpty()) {
            return new PathAttribute.Other(flags, 14, octets(value.rewind()));
        }
        int nextHopLength = value.get() & 0xFF;
        int global = family.get().ipFamily().bits() / 8;
        if ((nextHopLength != global && nextHopLength != 2 * global) || nextHopLength + 1 > value.remaining()) {
            throw new Malformed(
                    3, 9, whole, "an UPDATE whose MP_REACH_NLRI has a next hop of " + nextHopLength + " octets");
        }
        IpAddress nextHop = address(value, global);
        Optional<IpAddress> linkLocal =
                nextHopLength == 2 * global ? Optional.of(address(value, global)) : Optional.empty();
        value.get(); // reserved (RFC 4760 3)
        List<IpPrefix> nlri = MessageDecoder.prefixes(value, family.get().ipFamily(), 3, 9);
        return new PathAttribute.MpReach(family.get(), nextHop, linkLocal, nlri);
    }

    private static PathAttribute mpUnreach(int flags, ByteBuffer value, Octets whole) throws Malformed {
        requireLength(value.remaining() >= 3, 15, whole);
        Optional<Family> family = Family.of(value.getShort() & 0xFFFF, value.get() & 0xFF);
        if (family.isEmpty()) {
            return new PathAttribute.Other(flags, 15, octets(value.rewind()));
        }
        return new PathAttribute.MpUnreach(
                family.get(), MessageDecoder.prefixes(value, family.get().ipFamily(), 3, 9));
    }

    private static List<AsPathSegment> asPath(ByteBuffer value, int asSize) throws Malformed {
        List<AsPathSegment> segments = new ArrayList<>();
        while (value.hasRemaining()) {
            if (value.remaining() < 2) {
                throw new Malformed(3, 11, "an UPDATE with a truncated AS_PATH segment");
            }
            int type = value.get() & 0xFF;
            int count = value.get() & 0xFF;
            if ((type != 1 && type != 2) || count * asSize > value.remaining()) {
                throw new Malformed(
                        3,
                        11,
                        "an UPDATE with an AS_PATH segment of type " + type + " and " + count
                                + " ASes that does not fit");
            }
            List<Long> asns = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                asns.add(asSize == 4 ? value.getInt() & 0xFFFF_FFFFL : (long) (value.getShort() & 0xFFFF));
            }
            segments.add(
                    new AsPathSegment(type == 1 ? AsPathSegment.Type.AS_SET : AsPathSegment.Type.AS_SEQUENCE, asns));
        }
        return segments;
    }

    private static void requireLength(boolean ok, int type, Octets whole) throws Malformed {
        if (!ok) {
            throw new Malformed(3, 5, whole, "an UPDATE whose attribute " + type + " has a wrong length");
        }
    }

    private static IpAddress address(ByteBuffer in, int octets) {
        byte[] bytes = new byte[octets];
        in.get(bytes);
        return IpAddress.ofBytes(bytes);
    }

    private static long unsigned(ByteBuffer in) {
        return in.getInt() & 0xFFFF_FFFFL;
    }

    private static Octets octets(ByteBuffer in) {
        byte[] bytes = new byte[in.remaining()];
        in.get(bytes);
        return new Octets(bytes);
    }
}

package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads an UPDATE and checks it as RFC 4271 6.3 asks, revised by RFC 7606: an error confined to one attribute no
 * longer ends the session. Its routes are treated as withdrawn, or a bad ATOMIC_AGGREGATE or AGGREGATOR (which change
 * no route) is left out, or a repeated attribute is kept once. A NOTIFICATION remains for what leaves the message
 * unreadable: lengths that overrun it, an NLRI field that cannot be parsed (MP_REACH_NLRI's and MP_UNREACH_NLRI's
 * included, and either of them twice), and a well-known attribute this speaker does not know. An MP_REACH_NLRI or
 * MP_UNREACH_NLRI whose AFI/SAFI could be read says which: {@link AfiSafiDisable} decides whether the session ends.
 */
final class UpdateDecoder {
    private static final Set<Integer> WELL_KNOWN = Set.of(1, 2, 3, 5, 6);
    private static final Set<Integer> KNOWN_OPTIONAL = Set.of(4, 7, 8, 14, 15, 32);
    private static final int MP_REACH = 14;
    private static final int MP_UNREACH = 15;

    private UpdateDecoder() {}

    /** What RFC 7606 makes of an error in one attribute. */
    private enum Remedy {
        /** RFC 7606 2: the UPDATE's routes are withdrawn, as if it had said so. */
        TREAT_AS_WITHDRAW,
        /** RFC 7606 2: the attribute is left out; the routes stand. */
        ATTRIBUTE_DISCARD
    }

    /** An error RFC 7606 handles without a NOTIFICATION; thrown inside the attribute decoders only. */
    private static final class Flawed extends Exception {
        final Remedy remedy;

        Flawed(Remedy remedy, String reason) {
            super(reason, null, false, false);
            this.remedy = remedy;
        }
    }

    /** The errors found in one UPDATE that end no session. */
    private static final class Flaws {
        private final List<String> reasons = new ArrayList<>();
        private boolean withdraw;

        void add(Remedy remedy, String reason) {
            reasons.add(reason);
            withdraw |= remedy == Remedy.TREAT_AS_WITHDRAW;
        }

        void add(Flawed flawed) {
            add(flawed.remedy, flawed.getMessage());
        }
    }

    static Decoded decode(ByteBuffer body, boolean fourOctetAs) throws Malformed {
        int withdrawnLength = body.getShort() & 0xFFFF;
        if (withdrawnLength > body.remaining() - 2) {
            throw new Malformed(3, 1, "an UPDATE whose withdrawn routes overrun the message");
        }
        List<IpPrefix> withdrawn = MessageDecoder.prefixes(slice(body, withdrawnLength), IpFamily.IPv4, 3, 1);
        int attributesLength = body.getShort() & 0xFFFF;
        if (attributesLength > body.remaining()) {
            throw new Malformed(3, 1, "an UPDATE whose path attributes overrun the message");
        }
        Flaws flaws = new Flaws();
        List<PathAttribute> attributes = attributes(slice(body, attributesLength), fourOctetAs, flaws);
        List<IpPrefix> nlri = MessageDecoder.prefixes(body, IpFamily.IPv4, 3, 10);
        boolean announces = !nlri.isEmpty() || attributes.stream().anyMatch(a -> a instanceof PathAttribute.MpReach);
        if (announces) {
            requirePresent(attributes, 1, "ORIGIN", flaws);
            requirePresent(attributes, 2, "AS_PATH", flaws);
        }
        if (!nlri.isEmpty()) {
            requirePresent(attributes, 3, "NEXT_HOP", flaws);
        }
        Message.Update update = new Message.Update(withdrawn, attributes, nlri);
        if (flaws.reasons.isEmpty()) {
            return new Decoded.Valid(update);
        }
        String what = String.join("; ", flaws.reasons);
        return flaws.withdraw
                ? new Decoded.Revised(asWithdrawn(update), what + ": its routes are treated as withdrawn (RFC 7606)")
                : new Decoded.Revised(update, what + ": the attribute is left out (RFC 7606)");
    }

    /** RFC 7606 3 (d): an UPDATE that announces without a mandatory attribute withdraws its routes instead. */
    private static void requirePresent(List<PathAttribute> attributes, int typeCode, String name, Flaws flaws) {
        if (attributes.stream().noneMatch(a -> a.typeCode() == typeCode)) {
            flaws.add(Remedy.TREAT_AS_WITHDRAW, "an UPDATE without " + name);
        }
    }

    /** What treat-as-withdraw makes of {@code update}: every route it announces, withdrawn, and no attribute else. */
    private static Message.Update asWithdrawn(Message.Update update) {
        Map<Family, List<IpPrefix>> unreachable = new LinkedHashMap<>();
        for (PathAttribute attribute : update.attributes()) {
            switch (attribute) {
                case PathAttribute.MpReach reach ->
                    unreachable
                            .computeIfAbsent(reach.family(), f -> new ArrayList<>())
                            .addAll(reach.nlri());
                case PathAttribute.MpUnreach unreach ->
                    unreachable
                            .computeIfAbsent(unreach.family(), f -> new ArrayList<>())
                            .addAll(unreach.withdrawn());
                default -> {}
            }
        }
        List<IpPrefix> withdrawn = new ArrayList<>(update.withdrawn());
        withdrawn.addAll(update.nlri());
        List<PathAttribute> attributes = new ArrayList<>();
        unreachable.forEach((family, prefixes) -> attributes.add(new PathAttribute.MpUnreach(family, prefixes)));
        return new Message.Update(withdrawn, attributes, List.of());
    }

    private static ByteBuffer slice(ByteBuffer in, int length) {
        ByteBuffer part = in.slice(in.position(), length);
        in.position(in.position() + length);
        return part;
    }

    private static List<PathAttribute> attributes(ByteBuffer in, boolean fourOctetAs, Flaws flaws) throws Malformed {
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
                if (type == MP_REACH || type == MP_UNREACH) {
                    // RFC 7606 3 (g): which of the two holds the routes cannot be told
                    throw new Malformed(3, 1, "an UPDATE with attribute " + type + " twice");
                }
                flaws.add(Remedy.ATTRIBUTE_DISCARD, "an UPDATE with attribute " + type + " twice (the first is kept)");
                continue;
            }
            if (!optional(flags) && !WELL_KNOWN.contains(type) && !KNOWN_OPTIONAL.contains(type)) {
                throw new Malformed(3, 2, whole, "an UPDATE with unrecognized well-known attribute " + type);
            }
            try {
                checkFlags(flags, type);
                attributes.add(attribute(flags, type, value, whole, fourOctetAs));
            } catch (Flawed flawed) {
                flaws.add(flawed);
                // wrong flags on MP_REACH_NLRI or MP_UNREACH_NLRI: its routes, readable, are withdrawn with the others
                if (type == MP_REACH) {
                    attributes.add(mpReach(flags, value, whole));
                } else if (type == MP_UNREACH) {
                    attributes.add(mpUnreach(flags, value, whole));
                }
            }
        }
        return attributes;
    }

    private static boolean optional(int flags) {
        return (flags & PathAttribute.OPTIONAL) != 0;
    }

    /** RFC 7606 3 (c): flags in conflict with the attribute's make it malformed: treat-as-withdraw. */
    private static void checkFlags(int flags, int type) throws Flawed {
        boolean transitive = (flags & PathAttribute.TRANSITIVE) != 0;
        if (WELL_KNOWN.contains(type) && (optional(flags) || !transitive)) {
            throw new Flawed(
                    Remedy.TREAT_AS_WITHDRAW, "an UPDATE whose well-known attribute " + type + " has wrong flags");
        }
        if (KNOWN_OPTIONAL.contains(type) && !optional(flags)) {
            throw new Flawed(
                    Remedy.TREAT_AS_WITHDRAW, "an UPDATE whose optional attribute " + type + " has wrong flags");
        }
    }

    /**
     * One attribute's value, checked as RFC 7606 7 says for each: a flaw in one that describes the routes (ORIGIN,
     * AS_PATH, NEXT_HOP, MULTI_EXIT_DISC, LOCAL_PREF, COMMUNITIES, LARGE_COMMUNITY) withdraws them, one in
     * ATOMIC_AGGREGATE or AGGREGATOR discards the attribute; MP_REACH_NLRI and MP_UNREACH_NLRI hold the routes
     * themselves, so a flaw there is {@link Malformed} (RFC 7606 7.11: session reset, or AFI/SAFI disable).
     */
    private static PathAttribute attribute(int flags, int type, ByteBuffer value, Octets whole, boolean fourOctetAs)
            throws Malformed, Flawed {
        int length = value.remaining();
        return switch (type) {
            case 1 -> {
                requireLength(length == 1, type);
                int origin = value.get() & 0xFF;
                if (origin > 2) {
                    throw new Flawed(Remedy.TREAT_AS_WITHDRAW, "an UPDATE with ORIGIN " + origin);
                }
                yield new PathAttribute.Origin(origin);
            }
            case 2 -> new PathAttribute.AsPath(asPath(value, fourOctetAs ? 4 : 2));
            case 3 -> {
                requireLength(length == 4, type);
                yield new PathAttribute.NextHop(address(value, 4));
            }
            case 4 -> {
                requireLength(length == 4, type);
                yield new PathAttribute.MultiExitDisc(value.getInt() & 0xFFFF_FFFFL);
            }
            case 5 -> {
                requireLength(length == 4, type);
                yield new PathAttribute.LocalPref(value.getInt() & 0xFFFF_FFFFL);
            }
            case 6 -> {
                if (length != 0) {
                    throw new Flawed(Remedy.ATTRIBUTE_DISCARD, "an UPDATE whose ATOMIC_AGGREGATE has a value");
                }
                yield new PathAttribute.Other(flags, type, Octets.EMPTY);
            }
            case 7 -> {
                if (length != (fourOctetAs ? 8 : 6)) {
                    throw new Flawed(Remedy.ATTRIBUTE_DISCARD, "an UPDATE whose AGGREGATOR has " + length + " octets");
                }
                yield new PathAttribute.Other(flags, type, octets(value));
            }
            case 8 -> {
                requireLength(length % 4 == 0, type);
                List<Community.Standard> values = new ArrayList<>();
                while (value.hasRemaining()) {
                    values.add(new Community.Standard(value.getShort() & 0xFFFF, value.getShort() & 0xFFFF));
                }
                yield new PathAttribute.Communities(values);
            }
            case 32 -> {
                requireLength(length % 12 == 0, type);
                List<Community.Large> values = new ArrayList<>();
                while (value.hasRemaining()) {
                    values.add(new Community.Large(unsigned(value), unsigned(value), unsigned(value)));
                }
                yield new PathAttribute.LargeCommunities(values);
            }
            case MP_REACH -> mpReach(flags, value, whole);
            case MP_UNREACH -> mpUnreach(flags, value, whole);
            default -> new PathAttribute.Other(flags, type, octets(value));
        };
    }

    /**
     * RFC 4760 3; a flaw past its AFI/SAFI is told with that family (RFC 7606 7.11: with the next hop's length wrong,
     * the NLRI cannot be found, so "session reset" or "AFI/SAFI disable").
     */
    private static PathAttribute mpReach(int flags, ByteBuffer value, Octets whole) throws Malformed {
        int length = value.remaining();
        Optional<Family> family =
                length >= 3 ? Family.of(value.getShort() & 0xFFFF, value.get() & 0xFF) : Optional.empty();
        if (family.isEmpty() && length < 5) {
            throw new Malformed(3, 5, whole, "an UPDATE whose attribute 14 has a wrong length");
        }
        if (family.isEmpty()) {
            return new PathAttribute.Other(flags, 14, octets(value.rewind()));
        }
        try {
            if (length < 5) {
                throw new Malformed(3, 5, whole, "it ends after " + length + " octets");
            }
            return mpReach(family.get(), value, whole);
        } catch (Malformed e) {
            throw e.in(family.get(), "MP_REACH_NLRI");
        }
    }

    private static PathAttribute mpReach(Family family, ByteBuffer value, Octets whole) throws Malformed {
        int nextHopLength = value.get() & 0xFF;
        int global = family.ipFamily().bits() / 8;
        if ((nextHopLength != global && nextHopLength != 2 * global) || nextHopLength + 1 > value.remaining()) {
            throw new Malformed(3, 9, whole, "a next hop of " + nextHopLength + " octets");
        }
        IpAddress nextHop = address(value, global);
        Optional<IpAddress> linkLocal =
                nextHopLength == 2 * global ? Optional.of(address(value, global)) : Optional.empty();
        value.get(); // reserved (RFC 4760 3)
        List<IpPrefix> nlri = MessageDecoder.prefixes(value, family.ipFamily(), 3, 9);
        return new PathAttribute.MpReach(family, nextHop, linkLocal, nlri);
    }

    /** RFC 4760 4; a flaw past its AFI/SAFI is told with that family, as in {@link #mpReach}. */
    private static PathAttribute mpUnreach(int flags, ByteBuffer value, Octets whole) throws Malformed {
        if (value.remaining() < 3) {
            throw new Malformed(3, 5, whole, "an UPDATE whose attribute 15 has a wrong length");
        }
        Optional<Family> family = Family.of(value.getShort() & 0xFFFF, value.get() & 0xFF);
        if (family.isEmpty()) {
            return new PathAttribute.Other(flags, 15, octets(value.rewind()));
        }
        try {
            return new PathAttribute.MpUnreach(
                    family.get(), MessageDecoder.prefixes(value, family.get().ipFamily(), 3, 9));
        } catch (Malformed e) {
            throw e.in(family.get(), "MP_UNREACH_NLRI");
        }
    }

    private static List<AsPathSegment> asPath(ByteBuffer value, int asSize) throws Flawed {
        List<AsPathSegment> segments = new ArrayList<>();
        while (value.hasRemaining()) {
            if (value.remaining() < 2) {
                throw new Flawed(Remedy.TREAT_AS_WITHDRAW, "an UPDATE with a truncated AS_PATH segment");
            }
            int type = value.get() & 0xFF;
            int count = value.get() & 0xFF;
            if ((type != 1 && type != 2) || count * asSize > value.remaining()) {
                throw new Flawed(
                        Remedy.TREAT_AS_WITHDRAW,
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

    private static void requireLength(boolean ok, int type) throws Flawed {
        if (!ok) {
            throw new Flawed(Remedy.TREAT_AS_WITHDRAW, "an UPDATE whose attribute " + type + " has a wrong length");
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

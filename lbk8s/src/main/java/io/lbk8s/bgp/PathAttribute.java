package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.util.List;
import java.util.Optional;

/** A path attribute of an UPDATE (RFC 4271 4.3, 5), of the kinds this speaker sends or reads. */
public sealed interface PathAttribute {

    int OPTIONAL = 0x80;
    int TRANSITIVE = 0x40;
    int PARTIAL = 0x20;
    int EXTENDED_LENGTH = 0x10;

    /** The attribute's type code, from IANA's BGP Path Attributes registry. */
    default int typeCode() {
        return switch (this) {
            case Origin _ -> 1;
            case AsPath _ -> 2;
            case NextHop _ -> 3;
            case MultiExitDisc _ -> 4;
            case LocalPref _ -> 5;
            case Communities _ -> 8;
            case MpReach _ -> 14;
            case MpUnreach _ -> 15;
            case LargeCommunities _ -> 32;
            case Other other -> other.typeCode();
        };
    }

    /** The flags this speaker sends (Optional, Transitive); Extended Length is added when the value needs it. */
    default int flags() {
        return switch (this) {
            case Origin _, AsPath _, NextHop _, LocalPref _ -> TRANSITIVE;
            case MultiExitDisc _, MpReach _, MpUnreach _ -> OPTIONAL;
            case Communities _, LargeCommunities _ -> OPTIONAL | TRANSITIVE;
            case Other other -> other.flags();
        };
    }

    /** RFC 4271 5.1.1: where the route came from; a Service address is IGP. */
    record Origin(int value) implements PathAttribute {
        public static final Origin IGP = new Origin(0);
    }

    record AsPath(List<AsPathSegment> segments) implements PathAttribute {
        public static final AsPath EMPTY = new AsPath(List.of());

        public AsPath {
            segments = List.copyOf(segments);
        }
    }

    record NextHop(IpAddress address) implements PathAttribute {}

    record MultiExitDisc(long value) implements PathAttribute {}

    record LocalPref(long value) implements PathAttribute {}

    /** RFC 1997. */
    record Communities(List<Community.Standard> values) implements PathAttribute {
        public Communities {
            values = List.copyOf(values);
        }
    }

    /**
     * RFC 4760: routes of a family other than classic IPv4 unicast, with their next hop. For IPv6 (RFC 2545) the next
     * hop is a global address, optionally followed by the link-local address of the same interface.
     */
    record MpReach(Family family, IpAddress nextHop, Optional<IpAddress> linkLocalNextHop, List<IpPrefix> nlri)
            implements PathAttribute {
        public MpReach {
            nlri = List.copyOf(nlri);
        }
    }

    /** RFC 4760: withdrawn routes of a family; with none, the family's End-of-RIB marker (RFC 4724 2). */
    record MpUnreach(Family family, List<IpPrefix> withdrawn) implements PathAttribute {
        public MpUnreach {
            withdrawn = List.copyOf(withdrawn);
        }
    }

    /** RFC 8092. */
    record LargeCommunities(List<Community.Large> values) implements PathAttribute {
        public LargeCommunities {
            values = List.copyOf(values);
        }
    }

    /** An attribute this speaker does not use (AGGREGATOR, AS4_PATH, ...), kept with its flags as received. */
    record Other(int flags, int typeCode, Octets value) implements PathAttribute {}
}

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

    int typeCode();

    /** The flags this speaker sends (Optional, Transitive); Extended Length is added when the value needs it. */
    int flags();

    /** RFC 4271 5.1.1: where the route came from; a Service address is IGP. */
    record Origin(int value) implements PathAttribute {
        public static final Origin IGP = new Origin(0);

        @Override
        public int typeCode() {
            return 1;
        }

        @Override
        public int flags() {
            return TRANSITIVE;
        }
    }

    record AsPath(List<AsPathSegment> segments) implements PathAttribute {
        public static final AsPath EMPTY = new AsPath(List.of());

        public AsPath {
            segments = List.copyOf(segments);
        }

        @Override
        public int typeCode() {
            return 2;
        }

        @Override
        public int flags() {
            return TRANSITIVE;
        }
    }

    record NextHop(IpAddress address) implements PathAttribute {
        @Override
        public int typeCode() {
            return 3;
        }

        @Override
        public int flags() {
            return TRANSITIVE;
        }
    }

    record MultiExitDisc(long value) implements PathAttribute {
        @Override
        public int typeCode() {
            return 4;
        }

        @Override
        public int flags() {
            return OPTIONAL;
        }
    }

    record LocalPref(long value) implements PathAttribute {
        @Override
        public int typeCode() {
            return 5;
        }

        @Override
        public int flags() {
            return TRANSITIVE;
        }
    }

    /** RFC 1997. */
    record Communities(List<Community.Standard> values) implements PathAttribute {
        public Communities {
            values = List.copyOf(values);
        }

        @Override
        public int typeCode() {
            return 8;
        }

        @Override
        public int flags() {
            return OPTIONAL | TRANSITIVE;
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

        @Override
        public int typeCode() {
            return 14;
        }

        @Override
        public int flags() {
            return OPTIONAL;
        }
    }

    /** RFC 4760: withdrawn routes of a family; with none, the family's End-of-RIB marker (RFC 4724 2). */
    record MpUnreach(Family family, List<IpPrefix> withdrawn) implements PathAttribute {
        public MpUnreach {
            withdrawn = List.copyOf(withdrawn);
        }

        @Override
        public int typeCode() {
            return 15;
        }

        @Override
        public int flags() {
            return OPTIONAL;
        }
    }

    /** RFC 8092. */
    record LargeCommunities(List<Community.Large> values) implements PathAttribute {
        public LargeCommunities {
            values = List.copyOf(values);
        }

        @Override
        public int typeCode() {
            return 32;
        }

        @Override
        public int flags() {
            return OPTIONAL | TRANSITIVE;
        }
    }

    /** An attribute this speaker does not use (AGGREGATOR, AS4_PATH, ...), kept with its flags as received. */
    record Other(int flags, int typeCode, Octets value) implements PathAttribute {}
}

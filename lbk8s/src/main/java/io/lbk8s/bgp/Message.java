package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** The five BGP messages (RFC 4271 4, RFC 2918). */
public sealed interface Message {

    /** The message's type code in its header (RFC 4271 4.1). */
    default int type() {
        return switch (this) {
            case Open _ -> 1;
            case Update _ -> 2;
            case Notification _ -> 3;
            case Keepalive _ -> 4;
            case RouteRefresh _ -> 5;
        };
    }

    /** The two-octet My AS field says AS_TRANS when the AS needs four octets (RFC 6793 4.1). */
    int AS_TRANS = 23456;

    /**
     * @param myAsField the two-octet My AS field as sent; {@link #asn()} is the speaker's real AS
     * @param holdTime  seconds, 0 or at least 3
     */
    record Open(int version, int myAsField, int holdTime, IpAddress bgpIdentifier, List<Capability> capabilities)
            implements Message {
        public Open {
            capabilities = List.copyOf(capabilities);
        }

        public static Open of(long asn, int holdTime, IpAddress bgpIdentifier, List<Capability> capabilities) {
            return new Open(4, asn > 0xFFFF ? AS_TRANS : (int) asn, holdTime, bgpIdentifier, capabilities);
        }

        /** The sender's AS: the four-octet capability's when present, else the My AS field. */
        public long asn() {
            return capability(Capability.FourOctetAs.class)
                    .map(Capability.FourOctetAs::asn)
                    .orElse((long) myAsField);
        }

        public <C extends Capability> Optional<C> capability(Class<C> kind) {
            return capabilities.stream()
                    .filter(kind::isInstance)
                    .map(kind::cast)
                    .findFirst();
        }
    }

    /**
     * @param withdrawn IPv4 prefixes withdrawn; other families' withdrawals travel in {@link PathAttribute.MpUnreach}
     * @param nlri      IPv4 prefixes announced with {@code attributes}
     */
    record Update(List<IpPrefix> withdrawn, List<PathAttribute> attributes, List<IpPrefix> nlri) implements Message {
        public Update {
            withdrawn = List.copyOf(withdrawn);
            attributes = List.copyOf(attributes);
            nlri = List.copyOf(nlri);
        }

        /** RFC 4724 2: an UPDATE without routes (IPv4), or with an empty MP_UNREACH_NLRI (other families). */
        public static Update endOfRib(Family family) {
            return family == Family.IPV4_UNICAST
                    ? new Update(List.of(), List.of(), List.of())
                    : new Update(List.of(), List.of(new PathAttribute.MpUnreach(family, List.of())), List.of());
        }

        public Optional<Family> endOfRibFamily() {
            if (withdrawn.isEmpty() && nlri.isEmpty()) {
                if (attributes.isEmpty()) {
                    return Optional.of(Family.IPV4_UNICAST);
                }
                if (attributes.size() == 1 && attributes.getFirst() instanceof PathAttribute.MpUnreach u) {
                    return u.withdrawn().isEmpty() ? Optional.of(u.family()) : Optional.empty();
                }
            }
            return Optional.empty();
        }

        public <A extends PathAttribute> Optional<A> attribute(Class<A> kind) {
            return attributes.stream().filter(kind::isInstance).map(kind::cast).findFirst();
        }
    }

    record Keepalive() implements Message {}

    record Notification(int code, int subcode, Octets data) implements Message {
        public static final int CEASE = 6;
        public static final int ADMINISTRATIVE_SHUTDOWN = 2;

        public static Notification of(int code, int subcode) {
            return new Notification(code, subcode, Octets.EMPTY);
        }

        /** Cease / Administrative Shutdown with a shutdown communication (RFC 9003), at most 255 octets of UTF-8. */
        public static Notification administrativeShutdown(String communication) {
            byte[] text = communication.getBytes(StandardCharsets.UTF_8);
            byte[] data = new byte[1 + Math.min(text.length, 255)];
            data[0] = (byte) (data.length - 1);
            System.arraycopy(text, 0, data, 1, data.length - 1);
            return new Notification(CEASE, ADMINISTRATIVE_SHUTDOWN, new Octets(data));
        }

        /** The RFC 9003 shutdown communication of a Cease / Administrative Shutdown or Reset, when it has one. */
        public Optional<String> shutdownCommunication() {
            byte[] bytes = data.bytes();
            if (code != CEASE || (subcode != 2 && subcode != 4) || bytes.length < 1) {
                return Optional.empty();
            }
            int length = bytes[0] & 0xFF;
            if (length == 0 || length > bytes.length - 1) {
                return Optional.empty();
            }
            return Optional.of(new String(bytes, 1, length, StandardCharsets.UTF_8));
        }

        /** For example "OPEN Message Error / Bad Peer AS". */
        public String describe() {
            return NotificationNames.describe(code, subcode);
        }
    }

    /** RFC 2918: asks the peer to send its routes of this AFI/SAFI again. */
    record RouteRefresh(int afi, int safi) implements Message {}
}

package io.lbk8s.bgp;

import java.util.List;

/** A capability an OPEN advertises (RFC 5492), of the kinds this speaker understands, or kept as bytes. */
public sealed interface Capability {

    int code();

    /** RFC 4760: the peer can exchange routes of this AFI/SAFI. */
    record Multiprotocol(int afi, int safi) implements Capability {
        public static Multiprotocol of(Family family) {
            return new Multiprotocol(family.afi(), family.safi());
        }

        @Override
        public int code() {
            return 1;
        }
    }

    /** RFC 2918: the peer answers a ROUTE-REFRESH by sending its routes again. */
    record RouteRefresh() implements Capability {
        @Override
        public int code() {
            return 2;
        }
    }

    /**
     * RFC 4724.
     *
     * @param restarting         the Restart State bit: the sender has just restarted and its peer should not wait for
     *                           its End-of-RIB before sending its own routes
     * @param restartTimeSeconds how long the peer should keep this speaker's routes as stale after the session drops
     */
    record GracefulRestart(boolean restarting, int restartTimeSeconds, List<Forwarding> families)
            implements Capability {
        public GracefulRestart {
            families = List.copyOf(families);
        }

        /** One AFI/SAFI, and whether forwarding for it survived the restart (the F bit). */
        public record Forwarding(int afi, int safi, boolean preserved) {}

        @Override
        public int code() {
            return 64;
        }
    }

    /** RFC 6793: the sender's AS as four octets, which the OPEN's two-octet My AS field cannot hold above 65535. */
    record FourOctetAs(long asn) implements Capability {
        @Override
        public int code() {
            return 65;
        }
    }

    /** A capability this speaker does not use (add-path, extended next hop, FQDN, ...): kept, otherwise ignored. */
    record Unknown(int code, Octets value) implements Capability {}
}

package io.lbk8s.testkit.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * One peer of a test router: a single address, or a range from which any speaker may connect (dynamic neighbours, as
 * a router in front of an autoscaled cluster is set up). A peer carries the address family of its address: an IPv4
 * peer exchanges IPv4 unicast routes, an IPv6 peer IPv6 unicast routes.
 *
 * @param match     who may connect
 * @param asn       the peer's AS
 * @param password  TCP MD5 password (RFC 2385), empty for none
 * @param bfd       BFD on this session with these timers, empty for none
 * @param holdTime  the hold time the router proposes, empty for the implementation's default (FRR 180 s, BIRD 240 s, GoBGP 90 s, as their OPENs show)
 */
public record RouterPeer(
        PeerMatch match, long asn, Optional<String> password, Optional<BfdTimers> bfd, Optional<Duration> holdTime) {

    private static final long MAX_ASN = 0xFFFF_FFFFL;

    public RouterPeer {
        checkAsn(asn);
        password.ifPresent(p -> {
            if (p.isEmpty() || p.length() > 80 || !p.chars().allMatch(c -> c > ' ' && c < 127 && c != '"')) {
                // RFC 2385 keys are up to 80 bytes; quotes and blanks would need escaping in three config languages
                throw new IllegalArgumentException(
                        "password must be 1..80 printable characters without blanks or" + " quotes: " + p);
            }
        });
        holdTime.ifPresent(h -> {
            if (h.toSeconds() < 3 || h.toSeconds() > 65535 || h.toMillisPart() != 0) {
                throw new IllegalArgumentException("hold time must be 3..65535 whole seconds: " + h);
            }
        });
    }

    /** A peer at one address, no password, no BFD, the default hold time. */
    public static RouterPeer at(InetAddress address, long asn) {
        return new RouterPeer(
                new PeerMatch.Address(address), asn, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** Any speaker connecting from {@code cidr} (e.g. {@code 198.18.7.0/24}) with {@code asn}. */
    public static RouterPeer range(String cidr, long asn) {
        return new RouterPeer(PeerMatch.Range.parse(cidr), asn, Optional.empty(), Optional.empty(), Optional.empty());
    }

    public RouterPeer withPassword(String newPassword) {
        return new RouterPeer(match, asn, Optional.of(newPassword), bfd, holdTime);
    }

    public RouterPeer withBfd(BfdTimers timers) {
        return new RouterPeer(match, asn, password, Optional.of(timers), holdTime);
    }

    public RouterPeer withHoldTime(Duration newHoldTime) {
        return new RouterPeer(match, asn, password, bfd, Optional.of(newHoldTime));
    }

    public boolean ipv6() {
        return match.ipv6();
    }

    static void checkAsn(long asn) {
        if (asn < 1 || asn > MAX_ASN) {
            throw new IllegalArgumentException("AS must be 1.." + MAX_ASN + ": " + asn);
        }
    }

    /** Who may open a session with the router. */
    public sealed interface PeerMatch {

        boolean ipv6();

        /** Exactly one speaker, at this address; the router also connects to it. */
        record Address(InetAddress address) implements PeerMatch {
            @Override
            public boolean ipv6() {
                return address instanceof Inet6Address;
            }

            @Override
            public String toString() {
                return Addressing.text(address);
            }
        }

        /** Any speaker from this prefix; the router only listens. */
        record Range(InetAddress network, int length) implements PeerMatch {

            public Range {
                int max = network instanceof Inet6Address ? 128 : 32;
                if (length < 0 || length > max) {
                    throw new IllegalArgumentException("prefix length must be 0.." + max + ": " + length);
                }
            }

            static Range parse(String cidr) {
                int slash = cidr.indexOf('/');
                if (slash < 0) {
                    throw new IllegalArgumentException("not a prefix (address/length): " + cidr);
                }
                return new Range(
                        Addressing.literal(cidr.substring(0, slash)), Integer.parseInt(cidr.substring(slash + 1)));
            }

            @Override
            public boolean ipv6() {
                return network instanceof Inet6Address;
            }

            @Override
            public String toString() {
                return Addressing.text(network) + "/" + length;
            }
        }
    }
}

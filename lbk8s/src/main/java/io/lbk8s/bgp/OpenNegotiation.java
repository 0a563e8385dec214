package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** This node's OPEN for a peer, and whether the peer's OPEN is acceptable (RFC 4271 6.2, RFC 5492, RFC 6793). */
public final class OpenNegotiation {
    /** How long a router keeps our routes as stale while we restart (RFC 4724 3); FRR's and BIRD's default too. */
    public static final int RESTART_TIME_SECONDS = 120;

    private OpenNegotiation() {}

    public sealed interface Outcome {
        record Agreed(Negotiated negotiated) implements Outcome {}

        /** @param reason what the peer did, for {@link LastError} */
        record Refused(Message.Notification notification, String reason) implements Outcome {}
    }

    /**
     * @param firstSinceStart this process has not yet had an Established session with this peer: with graceful
     *                        restart, the OPEN says it restarted (Restart State, RFC 4724 3), as GoBGP's does when
     *                        started with graceful restart, so a helper keeps our stale routes until our End-of-RIB
     *                        instead of waiting for its own; later reconnects in the same process say it did not
     */
    public static Message.Open ours(PeerSpec spec, IpAddress routerId, boolean firstSinceStart) {
        List<Capability> capabilities = new ArrayList<>();
        for (Family family : Family.values()) {
            capabilities.add(Capability.Multiprotocol.of(family));
        }
        capabilities.add(new Capability.RouteRefresh());
        capabilities.add(new Capability.FourOctetAs(spec.myAsn()));
        if (spec.gracefulRestart()) {
            // forwarding preserved (the F bit) for every family we announce: kube-proxy, not this process, forwards
            // the Service addresses, and it keeps doing so while the speaker restarts; a helper that read F = 0 in
            // the new OPEN would drop our stale routes at once (RFC 4724 4.2)
            List<Capability.GracefulRestart.Forwarding> families = new ArrayList<>();
            for (Family family : Family.values()) {
                families.add(new Capability.GracefulRestart.Forwarding(family.afi(), family.safi(), true));
            }
            capabilities.add(new Capability.GracefulRestart(firstSinceStart, RESTART_TIME_SECONDS, families));
        }
        return Message.Open.of(spec.myAsn(), (int) spec.holdTime().toSeconds(), routerId, capabilities);
    }

    public static Outcome negotiate(PeerSpec spec, Message.Open ours, Message.Open theirs) {
        int theirHold = theirs.holdTime();
        if (theirHold == 1 || theirHold == 2) {
            return refuse(2, 6, "proposed a hold time of " + theirHold + " s; BGP allows 0 or at least 3");
        }
        long theirAsn = theirs.asn();
        if (spec.peerAsn().isPresent() && spec.peerAsn().getAsLong() != theirAsn) {
            return refuse(
                    2,
                    2,
                    "says it is AS " + theirAsn + ", the BGPPeer expects AS "
                            + spec.peerAsn().getAsLong());
        }
        if (spec.peerAsn().isEmpty() && spec.dynamicAsn().isPresent()) {
            boolean internal = theirAsn == spec.myAsn();
            boolean wantInternal = spec.dynamicAsn().get() == PeerSpec.DynamicAsn.INTERNAL;
            if (internal != wantInternal) {
                return refuse(
                        2,
                        2,
                        "says it is AS " + theirAsn + ", but dynamicASN is "
                                + (wantInternal
                                        ? "internal (AS " + spec.myAsn() + ")"
                                        : "external (not AS " + spec.myAsn() + ")"));
            }
        }
        if (theirs.bgpIdentifier().equals(ours.bgpIdentifier())) {
            return refuse(2, 3, "has our own BGP identifier " + ours.bgpIdentifier() + "; set a different routerID");
        }
        long holdSeconds = Math.min(ours.holdTime(), theirHold);
        Duration hold = Duration.ofSeconds(holdSeconds);
        Duration keepalive = holdSeconds == 0
                ? Duration.ZERO
                : spec.keepaliveTime()
                        .filter(k -> !k.isZero() && k.compareTo(hold) < 0)
                        .orElse(hold.dividedBy(3));
        Set<Family> families = families(ours);
        families.retainAll(families(theirs));
        boolean fourOctet = ours.capability(Capability.FourOctetAs.class).isPresent()
                && theirs.capability(Capability.FourOctetAs.class).isPresent();
        return new Outcome.Agreed(new Negotiated(
                theirAsn,
                theirs.bgpIdentifier(),
                hold,
                keepalive,
                fourOctet,
                families,
                theirs.capability(Capability.RouteRefresh.class).isPresent(),
                theirs.capability(Capability.GracefulRestart.class).isPresent(),
                theirAsn == spec.myAsn()));
    }

    /** RFC 4760 8: a speaker that sends no multiprotocol capability speaks IPv4 unicast only. */
    private static Set<Family> families(Message.Open open) {
        Set<Family> families = EnumSet.noneOf(Family.class);
        boolean any = false;
        for (Capability capability : open.capabilities()) {
            if (capability instanceof Capability.Multiprotocol(int afi, int safi)) {
                any = true;
                Family.of(afi, safi).ifPresent(families::add);
            }
        }
        if (!any) {
            families.add(Family.IPV4_UNICAST);
        }
        return families;
    }

    private static Outcome refuse(int code, int subcode, String reason) {
        return new Outcome.Refused(Message.Notification.of(code, subcode), reason);
    }
}

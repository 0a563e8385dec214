package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** Peer specs as a BGPPeer would give them, for the tests of the pure decisions. */
public final class PeerSpecs {
    private PeerSpecs() {}

    /** AS 64512 peering with router 10.0.0.1 of AS 64513, hold time 90 s, graceful restart on. */
    public static PeerSpec external() {
        return new PeerSpec(
                "router",
                IpAddress.parse("10.0.0.1").orElseThrow(),
                PeerSpec.PORT,
                64512,
                OptionalLong.of(64513),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Duration.ofSeconds(90),
                Optional.empty(),
                Duration.ofSeconds(10),
                Optional.empty(),
                false,
                true,
                false,
                Optional.empty());
    }

    /**
     * AS 64512 peering with a router of AS 64513 listening on loopback at {@code port}, router ID 10.0.0.5, graceful
     * restart on: for the session tests against a listener of their own.
     */
    public static PeerSpec onLoopback(String name, int port, Duration holdTime, Duration connectTime) {
        return new PeerSpec(
                name,
                IpAddress.of(InetAddress.getLoopbackAddress()),
                port,
                64512,
                OptionalLong.of(64513),
                Optional.empty(),
                Optional.empty(),
                Optional.of(IpAddress.parse("10.0.0.5").orElseThrow()),
                holdTime,
                Optional.empty(),
                connectTime,
                Optional.empty(),
                false,
                true,
                false,
                Optional.empty());
    }

    public static PeerSpec withPeerAsn(PeerSpec s, OptionalLong peerAsn, Optional<PeerSpec.DynamicAsn> dynamic) {
        return copy(s, peerAsn, dynamic, s.keepaliveTime(), s.ebgpMultiHop(), s.gracefulRestart());
    }

    static PeerSpec withKeepalive(PeerSpec s, Duration keepalive) {
        return copy(s, s.peerAsn(), s.dynamicAsn(), Optional.of(keepalive), s.ebgpMultiHop(), s.gracefulRestart());
    }

    public static PeerSpec withGracefulRestart(PeerSpec s, boolean gracefulRestart) {
        return copy(s, s.peerAsn(), s.dynamicAsn(), s.keepaliveTime(), s.ebgpMultiHop(), gracefulRestart);
    }

    public static PeerSpec withEbgpMultiHop(PeerSpec s, boolean ebgpMultiHop) {
        return copy(s, s.peerAsn(), s.dynamicAsn(), s.keepaliveTime(), ebgpMultiHop, s.gracefulRestart());
    }

    private static PeerSpec copy(
            PeerSpec s,
            OptionalLong peerAsn,
            Optional<PeerSpec.DynamicAsn> dynamic,
            Optional<Duration> keepalive,
            boolean ebgpMultiHop,
            boolean gracefulRestart) {
        return new PeerSpec(
                s.name(),
                s.address(),
                s.port(),
                s.myAsn(),
                peerAsn,
                dynamic,
                s.sourceAddress(),
                s.routerId(),
                s.holdTime(),
                keepalive,
                s.connectTime(),
                s.password(),
                ebgpMultiHop,
                gracefulRestart,
                s.dualStack(),
                s.bfd());
    }
}

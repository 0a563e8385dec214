package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bfd.BfdSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Everything one node needs to hold a session with one peer: what a BGPPeer says, with its password read from its
 * Secret and its BFDProfile resolved. Two specs with the same {@code name} are the same session; a changed spec
 * restarts it, unless only what is read when connecting changed ({@link #sameSessionAs}).
 *
 * @param peerAsn       the peer's AS; empty with {@code dynamicAsn}, which accepts what the peer's OPEN says
 * @param dynamicAsn    for an empty {@code peerAsn}: {@code INTERNAL} (the peer's AS must equal ours) or
 *                      {@code EXTERNAL} (it must differ)
 * @param keepaliveTime empty means a third of the negotiated hold time
 * @param routerId      empty means the node's own IPv4 address on the session
 * @param password      TCP MD5 signature key (RFC 2385); empty means none
 * @param bfd           run BFD with the peer and drop the session when BFD says it is down
 */
public record PeerSpec(
        String name,
        IpAddress address,
        int port,
        long myAsn,
        OptionalLong peerAsn,
        Optional<DynamicAsn> dynamicAsn,
        Optional<IpAddress> sourceAddress,
        Optional<IpAddress> routerId,
        Duration holdTime,
        Optional<Duration> keepaliveTime,
        Duration connectTime,
        Optional<String> password,
        boolean ebgpMultiHop,
        boolean gracefulRestart,
        boolean dualStack,
        Optional<BfdSettings> bfd) {

    public enum DynamicAsn {
        INTERNAL,
        EXTERNAL
    }

    public static final int PORT = 179;

    /**
     * What differs from {@code before}, in the BGPPeer's words (the password by name only): why a session restarts.
     */
    public List<String> changesFrom(PeerSpec before) {
        List<String> changed = new ArrayList<>();
        BiConsumer<String, Function<PeerSpec, Object>> compare = (field, value) -> {
            if (!Objects.equals(value.apply(this), value.apply(before))) {
                changed.add(field);
            }
        };
        compare.accept("peerAddress", PeerSpec::address);
        compare.accept("peerPort", PeerSpec::port);
        compare.accept("myASN", PeerSpec::myAsn);
        compare.accept("peerASN", PeerSpec::peerAsn);
        compare.accept("dynamicASN", PeerSpec::dynamicAsn);
        compare.accept("sourceAddress", PeerSpec::sourceAddress);
        compare.accept("routerID", PeerSpec::routerId);
        compare.accept("holdTime", PeerSpec::holdTime);
        compare.accept("keepaliveTime", PeerSpec::keepaliveTime);
        compare.accept("connectTime", PeerSpec::connectTime);
        compare.accept("password", PeerSpec::password);
        compare.accept("ebgpMultiHop", PeerSpec::ebgpMultiHop);
        compare.accept("enableGracefulRestart", PeerSpec::gracefulRestart);
        compare.accept("dualStackAddressFamily", PeerSpec::dualStack);
        compare.accept("bfdProfile", PeerSpec::bfd);
        return List.copyOf(changed);
    }

    /**
     * Whether a session with {@code before} can go on under this spec: only what is read when connecting changed
     * ({@code connectTime}), nothing the OPEN, the socket or BFD were made of.
     */
    public boolean sameSessionAs(PeerSpec before) {
        return name.equals(before.name()) && changesFrom(before).stream().allMatch("connectTime"::equals);
    }

    /** Whether the peer is in our own AS (iBGP), as configured: before its OPEN says so. */
    public boolean internal() {
        return internal(myAsn, peerAsn, dynamicAsn);
    }

    /** Whether a peer given as {@code peerAsn} or {@code dynamicAsn} is in {@code myAsn} (iBGP). */
    public static boolean internal(long myAsn, OptionalLong peerAsn, Optional<DynamicAsn> dynamicAsn) {
        return peerAsn.isPresent() ? peerAsn.getAsLong() == myAsn : dynamicAsn.equals(Optional.of(DynamicAsn.INTERNAL));
    }
}

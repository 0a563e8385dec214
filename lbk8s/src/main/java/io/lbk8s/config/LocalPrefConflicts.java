package io.lbk8s.config;

import io.lbk8s.address.IpFamily;
import io.lbk8s.bgp.Route;
import io.lbk8s.text.Quoted;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * BGPAdvertisements that would send one route to one router with two different local preferences. MetalLB refuses
 * its whole configuration when two advertisements of a pool differ in localPref, unless their aggregation lengths
 * differ, or both name peers and share none, or no node they select (among the nodes there are) is common. lbk8s
 * refuses only the advertisement defined later, and also lets pass what cannot clash:
 * <ul>
 *   <li>peers that are eBGP: LOCAL_PREF is sent to iBGP peers only (RFC 4271 5.1.5), so an eBGP router never sees
 *       either value;</li>
 *   <li>an unset localPref against {@code localPref: 100}: unset is sent as 100.</li>
 * </ul>
 * The parser sees no nodes, so it refuses only when the nodes certainly overlap: one advertisement has no
 * nodeSelectors, or both have the same. With other selectors, whether a node matches both depends on its labels;
 * the speakers judge that per Service (BgpPlan), send the highest, and say so on the Service.
 */
final class LocalPrefConflicts {
    private LocalPrefConflicts() {}

    /** Whether {@code advertisement} clashes with none of {@code earlier}; if it does, the error is reported on it. */
    static boolean isFirst(
            BgpAdvertisement advertisement,
            List<BgpAdvertisement> earlier,
            List<AddressPool> pools,
            List<BgpPeer> peers,
            List<ConfigProblem> problems) {
        for (BgpAdvertisement other : earlier) {
            Optional<String> clash = clash(advertisement, other, pools, peers);
            if (clash.isPresent()) {
                problems.add(ConfigProblem.error(advertisement.origin(), clash.get()));
                return false;
            }
        }
        return true;
    }

    /**
     * A warning when {@code advertisement} sets localPref and every BGPPeer it advertises to is eBGP, where it has
     * no effect.
     */
    static Optional<String> unsent(BgpAdvertisement advertisement, List<BgpPeer> peers) {
        if (advertisement.localPref().isEmpty()) {
            return Optional.empty();
        }
        List<BgpPeer> targets =
                peers.stream().filter(p -> advertisement.toPeer(p.name())).toList();
        if (targets.isEmpty() || targets.stream().anyMatch(BgpPeer::internal)) {
            return Optional.empty();
        }
        return Optional.of("localPref: " + advertisement.localPref().getAsLong() + " has no effect: LOCAL_PREF is sent"
                + " to iBGP peers only (peerASN equal to myASN), and every BGPPeer this advertises to is eBGP ("
                + String.join(
                        ", ", targets.stream().map(p -> Quoted.of(p.name())).toList()) + ")");
    }

    private static Optional<String> clash(
            BgpAdvertisement advertisement, BgpAdvertisement other, List<AddressPool> pools, List<BgpPeer> peers) {
        long mine = Route.sentLocalPref(advertisement.localPref());
        long theirs = Route.sentLocalPref(other.localPref());
        if (mine == theirs || !nodesCertainlyOverlap(advertisement, other)) {
            return Optional.empty();
        }
        Optional<BgpPeer> peer = peers.stream()
                .filter(BgpPeer::internal)
                .filter(p -> advertisement.toPeer(p.name()) && other.toPeer(p.name()))
                .findFirst();
        if (peer.isEmpty()) {
            return Optional.empty();
        }
        Optional<AddressPool> pool = pools.stream()
                .filter(p -> advertisement.selects(p) && other.selects(p))
                .filter(p -> sameRoutes(advertisement, other, p))
                .findFirst();
        return pool.map(p -> "localPref: " + shown(advertisement.localPref()) + " differs from the "
                + shown(other.localPref())
                + " of BGPAdvertisement " + Quoted.of(other.name()) + ", which also advertises pool "
                + Quoted.of(p.name()) + " to iBGP peer " + Quoted.of(peer.get().name())
                + " from the same nodes with the same aggregation length: the router would get one route with two"
                + " local preferences. Give both the same localPref, or make them differ in peers, nodeSelectors or"
                + " aggregationLength");
    }

    /** Whether the two advertise some address of {@code pool} as the same prefix: an aggregation length in common. */
    private static boolean sameRoutes(BgpAdvertisement a, BgpAdvertisement b, AddressPool pool) {
        return (pool.hasFamily(IpFamily.IPv4) && a.aggregationLength() == b.aggregationLength())
                || (pool.hasFamily(IpFamily.IPv6) && a.aggregationLengthV6() == b.aggregationLengthV6());
    }

    private static boolean nodesCertainlyOverlap(BgpAdvertisement a, BgpAdvertisement b) {
        return a.nodeSelectors().isEmpty()
                || b.nodeSelectors().isEmpty()
                || new HashSet<>(a.nodeSelectors()).equals(new HashSet<>(b.nodeSelectors()));
    }

    private static String shown(OptionalLong localPref) {
        return localPref.isPresent() ? String.valueOf(localPref.getAsLong()) : "unset (sent as 100)";
    }
}

package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.Route;
import io.lbk8s.config.BgpAdvertisement;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * BGPAdvertisements that give one route to one iBGP peer different local preferences from the same node: the clash
 * the config parser cannot see, because it depends on which nodes match which nodeSelectors (it refuses the certain
 * ones). Every node computes it alike, for every advertising node, so that the first of them in the address's order
 * where it happens reports it once. The highest localPref is sent, an unset one counting as the 100 it is sent as.
 */
final class LocalPrefClash {
    private LocalPrefClash() {}

    /** A clash on {@code node}, said in {@code reason}. */
    record Found(String node, String reason) {}

    /** The first of the advertising nodes where the advertisements of {@code advertised} clash, if any. */
    static Optional<Found> find(
            BgpChoice.Advertised advertised, Config config, Collection<NodeState> nodes, LeaderChoice.Options options) {
        if (!possible(advertised.advertisements())) {
            return Optional.empty(); // the common case: nothing can clash
        }
        List<BgpPeer> internal = config.bgpPeers().stream()
                .filter(BgpPeer::internal)
                .filter(p -> sends(advertised.ip(), p))
                .sorted(Comparator.comparing(BgpPeer::name))
                .toList();
        for (String name : advertised.nodes()) {
            Optional<NodeState> node =
                    nodes.stream().filter(n -> n.name().equals(name)).findFirst();
            if (node.isEmpty()) {
                continue;
            }
            for (BgpPeer peer : internal) {
                if (!BgpPeering.peers(peer, node.get(), options)) {
                    continue;
                }
                Optional<String> reason = clash(advertised, node.get(), peer);
                if (reason.isPresent()) {
                    return Optional.of(new Found(name, reason.get()));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether the advertisements send different localPrefs, without which nothing can clash (most addresses). */
    static boolean possible(List<BgpAdvertisement> advertisements) {
        for (BgpAdvertisement advertisement : advertisements) {
            if (Route.sentLocalPref(advertisement.localPref())
                    != Route.sentLocalPref(advertisements.getFirst().localPref())) {
                return true;
            }
        }
        return false;
    }

    /** The highest of the local preferences, unset counting as what is sent; empty when none is set. */
    static OptionalLong highest(Collection<OptionalLong> localPrefs) {
        if (localPrefs.stream().allMatch(OptionalLong::isEmpty)) {
            return OptionalLong.empty();
        }
        return localPrefs.stream().mapToLong(Route::sentLocalPref).max();
    }

    private static Optional<String> clash(BgpChoice.Advertised advertised, NodeState node, BgpPeer peer) {
        Map<IpPrefix, Map<String, OptionalLong>> byPrefix = new TreeMap<>(Comparator.comparing(IpPrefix::toString));
        for (BgpAdvertisement advertisement : advertised.advertisements()) {
            if (advertisement.allowsNode(node.labels()) && advertisement.toPeer(peer.name())) {
                byPrefix.computeIfAbsent(BgpPlan.prefix(advertised.ip(), advertisement), p -> new TreeMap<>())
                        .put(advertisement.name(), advertisement.localPref());
            }
        }
        for (var entry : byPrefix.entrySet()) {
            Map<String, OptionalLong> prefs = entry.getValue();
            if (prefs.values().stream().map(Route::sentLocalPref).distinct().count() < 2) {
                continue;
            }
            List<String> parts = new ArrayList<>();
            prefs.forEach((name, pref) -> parts.add(
                    Quoted.of(name) + " " + (pref.isPresent() ? String.valueOf(pref.getAsLong()) : "unset (100)")));
            return Optional.of("BGPAdvertisements give " + entry.getKey() + " different localPrefs towards iBGP peer "
                    + Quoted.of(peer.name()) + " from " + node.name() + " (" + String.join(", ", parts)
                    + "); the highest, " + highest(prefs.values()).getAsLong() + ", is sent");
        }
        return Optional.empty();
    }

    /** Whether a session with {@code peer} carries {@code ip}'s family. */
    private static boolean sends(IpAddress ip, BgpPeer peer) {
        return ip.family() == peer.peerAddress().family() || peer.dualStackAddressFamily();
    }
}

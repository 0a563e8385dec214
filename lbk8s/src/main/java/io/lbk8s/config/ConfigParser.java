package io.lbk8s.config;

import io.lbk8s.bgp.Community;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The one parser and validator of lbk8s configuration (MetalLB IPAddressPools and L2Advertisements, and the lbk8s
 * ConfigMap), used by the controller, the speaker and validation alike. Pure: no Kubernetes API, no I/O.
 *
 * <p>Behaviour:
 * <ul>
 *   <li>Inputs are first sorted (custom resources by namespace then name, ConfigMaps likewise), so the result does
 *       not depend on the order the caller lists them in; the same input always yields the same result, problems
 *       in the same order.</li>
 *   <li>Every object is checked completely: all its problems are reported, not just the first. A problem's origin
 *       is the offending object; its message starts with the field path ({@code addresses[1] "10.0.0.300/24": ...},
 *       in the ConfigMap {@code pools[0] "default": addresses[1] ...}).</li>
 *   <li>When two pools conflict, the one defined first wins and the error lands on the other. "First" means: an
 *       object the caller names as established (accepted before and unchanged) before any other; then the earlier
 *       {@code creationTimestamp}; then custom resources before the ConfigMap; then namespace and name; inside the
 *       ConfigMap, list order. So a newly applied pool that clashes is the one refused, never the pool in use.</li>
 *   <li>Pool names are global: a name defined twice (by two IPAddressPools in any namespaces, by an IPAddressPool
 *       and the ConfigMap, or twice in the ConfigMap) is an error on every definition after the first.</li>
 *   <li>A range that includes any address of a {@link SpecialPurposeRanges special-purpose block} (loopback,
 *       multicast, link-local, ...), even one, refuses its pool like any bad entry: the pool keeps the version
 *       accepted before, if any, and the other pools are unaffected. The message names the blocks and which
 *       addresses of the range lie in them, so that the range can be rewritten without them. In an established
 *       pool (accepted before lbk8s refused such ranges: an upgrade) the entry is dropped with a WARNING instead,
 *       so that the Services holding its other addresses keep them.</li>
 *   <li>No two ranges may overlap, inside one pool or between pools. Pools are taken in definition order; a range
 *       that overlaps a range of an earlier pool that was kept refuses its pool. O(n log n).</li>
 *   <li>Objects with an ERROR are left out of the {@link Config}; the rest are in it, pools and L2Advertisements
 *       sorted by name (the documented auto-assign order). Any ERROR makes {@link ConfigResult#valid()} false.</li>
 *   <li>Fields the parser does not know are ignored with a WARNING (MetalLB's CRD would have pruned them).</li>
 * </ul>
 *
 * <p>The parts, each in its own file: {@link PoolParser} (one pool), {@link ConfigMapPools} (the ConfigMap's pools),
 * {@link PoolConflicts} (names and overlaps between pools), {@link L2AdvertisementParser}, {@link LabelSelectorParser}
 * (the selector grammar), {@link RawValues} (typed reads of parsed YAML) and {@link ConfigFields} (the fields read).
 */
public final class ConfigParser {
    private ConfigParser() {}

    private static final Comparator<ConfigSources.RawObject> BY_NAMESPACE_AND_NAME = Comparator.comparing(
                    (ConfigSources.RawObject o) -> String.valueOf(o.namespace()))
            .thenComparing(o -> String.valueOf(o.name()))
            // two objects never share a namespace and name in a cluster; if a caller passes such, still be
            // deterministic
            .thenComparing(o -> String.valueOf(o.spec()) + " " + new TreeMap<>(o.labels()));

    public static ConfigResult parse(ConfigSources sources) {
        return parse(sources, Set.of());
    }

    /** Parses with the objects in {@code established} defined before all others (see the class comment). */
    public static ConfigResult parse(ConfigSources sources, Set<ConfigOrigin> established) {
        List<ConfigProblem> problems = new ArrayList<>();
        List<PoolDraft> drafts = new ArrayList<>();

        for (ConfigSources.RawObject raw : sorted(sources.ipAddressPools(), BY_NAMESPACE_AND_NAME)) {
            PoolDraft draft = PoolParser.poolFromResource(raw, problems);
            draft.precedence = new PoolDraft.Precedence(
                    !established.contains(draft.scope.origin),
                    raw.createdAt(),
                    0,
                    String.valueOf(raw.namespace()),
                    String.valueOf(raw.name()),
                    0);
            drafts.add(draft);
        }
        List<ConfigSources.RawConfigMap> configMaps = new ArrayList<>(sources.configMaps());
        configMaps.sort(Comparator.comparing((ConfigSources.RawConfigMap c) -> String.valueOf(c.namespace()))
                .thenComparing(c -> String.valueOf(c.name())));
        for (ConfigSources.RawConfigMap configMap : configMaps) {
            List<PoolDraft> fromMap = ConfigMapPools.poolsFromConfigMap(configMap, problems);
            for (int i = 0; i < fromMap.size(); i++) {
                PoolDraft draft = fromMap.get(i);
                draft.precedence = new PoolDraft.Precedence(
                        !established.contains(draft.scope.origin),
                        configMap.createdAt(),
                        1,
                        String.valueOf(configMap.namespace()),
                        String.valueOf(configMap.name()),
                        i);
            }
            drafts.addAll(fromMap);
        }

        for (PoolDraft draft : drafts) {
            PoolParser.judgeSpecialPurpose(draft, established.contains(draft.scope.origin));
        }
        drafts.sort(Comparator.comparing((PoolDraft d) -> d.precedence, PoolDraft.Precedence.ORDER));

        // Pool names are global; the first definition wins.
        Map<String, PoolDraft> byName = new HashMap<>();
        List<PoolDraft> named = PoolConflicts.firstOfEachName(drafts, byName);
        PoolConflicts.checkOverlapsBetweenPools(named);

        List<AddressPool> pools = new ArrayList<>();
        for (PoolDraft draft : named) {
            if (!draft.scope.failed) {
                pools.add(draft.toPool());
            }
        }
        pools.sort(Comparator.comparing(AddressPool::name));

        List<L2Advertisement> advertisements = new ArrayList<>();
        for (ConfigSources.RawObject raw : sorted(sources.l2Advertisements(), BY_NAMESPACE_AND_NAME)) {
            L2AdvertisementParser.parse(raw, byName.keySet(), problems).ifPresent(advertisements::add);
        }
        advertisements.sort(Comparator.comparing(L2Advertisement::name)
                .thenComparing(a -> String.valueOf(a.origin().namespace())));

        Bgp bgp = parseBgp(sources, established, byName.keySet(), pools, problems);
        return new ConfigResult(
                new Config(pools, advertisements, bgp.peers, bgp.advertisements, bgp.bfdProfiles), problems);
    }

    private record Bgp(List<BgpPeer> peers, List<BgpAdvertisement> advertisements, List<BfdProfile> bfdProfiles) {}

    /** BFDProfiles first, then Community aliases and BGPPeers, which name them, then BGPAdvertisements. */
    private static Bgp parseBgp(
            ConfigSources sources,
            Set<ConfigOrigin> established,
            Set<String> poolNames,
            List<AddressPool> pools,
            List<ConfigProblem> problems) {
        List<BfdProfile> bfdProfiles = new ArrayList<>();
        for (ConfigSources.RawObject raw : sorted(sources.bfdProfiles(), BY_NAMESPACE_AND_NAME)) {
            BfdProfileParser.parse(raw, problems).ifPresent(bfdProfiles::add);
        }
        Set<String> bfdNames = new HashSet<>();
        bfdProfiles.forEach(p -> bfdNames.add(p.name()));

        Map<String, Community> aliases = CommunityParser.aliases(
                sorted(sources.communities(), definitionOrder(ConfigOrigin.Kind.Community, established)), problems);

        List<BgpPeer> peers = new ArrayList<>();
        for (ConfigSources.RawObject raw :
                sorted(sources.bgpPeers(), definitionOrder(ConfigOrigin.Kind.BGPPeer, established))) {
            BgpPeerParser.parse(raw, bfdNames, problems)
                    .filter(peer -> PeerConflicts.isFirst(peer, peers, problems))
                    .ifPresent(peers::add);
        }
        Set<String> peerNames = new HashSet<>();
        peers.forEach(p -> peerNames.add(p.name()));

        BgpAdvertisementParser.Context context =
                new BgpAdvertisementParser.Context(poolNames, pools, peerNames, peers, aliases);
        List<BgpAdvertisement> advertisements = new ArrayList<>();
        for (ConfigSources.RawObject raw :
                sorted(sources.bgpAdvertisements(), definitionOrder(ConfigOrigin.Kind.BGPAdvertisement, established))) {
            BgpAdvertisementParser.parse(raw, context, problems)
                    .filter(a -> LocalPrefConflicts.isFirst(a, advertisements, pools, peers, problems))
                    .ifPresent(advertisements::add);
        }
        Comparator<ConfigOrigin> byOrigin =
                Comparator.comparing((ConfigOrigin o) -> o.name()).thenComparing(o -> String.valueOf(o.namespace()));
        peers.sort(Comparator.comparing(BgpPeer::origin, byOrigin));
        advertisements.sort(Comparator.comparing(BgpAdvertisement::origin, byOrigin));
        bfdProfiles.sort(Comparator.comparing(BfdProfile::origin, byOrigin));
        return new Bgp(peers, advertisements, bfdProfiles);
    }

    /**
     * The order in which objects of one kind are defined, for conflicts between them: established objects first,
     * then by creation time (none: not created yet, last), then namespace and name.
     */
    private static Comparator<ConfigSources.RawObject> definitionOrder(
            ConfigOrigin.Kind kind, Set<ConfigOrigin> established) {
        return Comparator.comparing((ConfigSources.RawObject o) ->
                        !established.contains(new ConfigOrigin(kind, o.namespace(), o.name())))
                .thenComparing(o -> o.createdAt().isEmpty() ? "~" : o.createdAt()) // '~' sorts after any time
                .thenComparing(BY_NAMESPACE_AND_NAME);
    }

    private static <T> List<T> sorted(List<T> list, Comparator<? super T> order) {
        List<T> copy = new ArrayList<>(list);
        copy.sort(order);
        return copy;
    }
}

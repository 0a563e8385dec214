package io.lbk8s.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Configuration lbk8s does not read although a user may expect it to: MetalLB's objects (IPAddressPools,
 * L2Advertisements and the BGP kinds) outside lbk8s's namespace (typically MetalLB's {@code metallb-system}), and
 * MetalLB's legacy (before 0.13) ConfigMap, wherever it is. Says what was found and how to move it, so that "no
 * address pool is configured" is not the whole story. Pure.
 */
public final class MisplacedConfig {
    private MisplacedConfig() {}

    public enum Kind {
        IPAddressPool("IPAddressPools"),
        L2Advertisement("L2Advertisements"),
        BGPPeer("BGPPeers"),
        BGPAdvertisement("BGPAdvertisements"),
        Community("Communities"),
        BFDProfile("BFDProfiles"),
        LegacyConfigMap("legacy ConfigMaps");

        private final String plural;

        Kind(String plural) {
            this.plural = plural;
        }

        /** "1 BGPPeer", "2 Communities". */
        String counted(int count) {
            return count + " " + (count == 1 ? name() : plural);
        }

        /**
         * Whether a misplaced object of this kind shows in no Service's trouble: a BGPPeer lbk8s does not read leaves
         * the Services their addresses (and layer 2, if configured), so it is told on the object itself when found.
         */
        public boolean silentWhenMisplaced() {
            return this == BGPPeer || this == BGPAdvertisement || this == Community || this == BFDProfile;
        }
    }

    /** One object found in the cluster: what it is and where. */
    public record Found(Kind kind, String namespace, String name) {
        @Override
        public String toString() {
            return (kind == Kind.LegacyConfigMap ? "ConfigMap" : kind.name()) + " " + namespace + "/" + name;
        }
    }

    /** The name MetalLB's plain manifests give their legacy ConfigMap (its Helm chart used the release's name). */
    public static final String LEGACY_CONFIG_MAP_NAME = "config";
    /** The key of the legacy ConfigMap that holds the YAML. */
    public static final String LEGACY_CONFIG_MAP_KEY = "config";

    private static final Pattern LEGACY_POOLS = Pattern.compile("(?m)^address-pools\\s*:");

    /** Whether a ConfigMap's data is MetalLB's legacy configuration: a {@code config} key with {@code address-pools}. */
    public static boolean isLegacyConfigMap(Map<String, String> data) {
        String config = data == null ? null : data.get(LEGACY_CONFIG_MAP_KEY);
        return config != null && LEGACY_POOLS.matcher(config).find();
    }

    /** What of {@code found} lbk8s, reading {@code ownNamespace}, does not read: in a stable order. */
    public static List<Found> misplaced(String ownNamespace, Collection<Found> found) {
        return found.stream()
                .filter(f -> f.kind() == Kind.LegacyConfigMap || !ownNamespace.equals(f.namespace()))
                .distinct()
                .sorted(Comparator.comparing(Found::kind)
                        .thenComparing(Found::namespace)
                        .thenComparing(Found::name))
                .toList();
    }

    /** The command that shows how to move the configuration into {@code ownNamespace}. */
    private static String migrateCommand(String ownNamespace) {
        return "lbk8s migrate -n " + ownNamespace + " --dry-run";
    }

    /**
     * "found 2 IPAddressPools and 1 L2Advertisement in metallb-system and MetalLB's legacy ConfigMap
     * metallb-system/config, which lbk8s does not read: run ...", or empty when nothing is misplaced.
     */
    public static Optional<String> summary(String ownNamespace, List<Found> misplaced) {
        if (misplaced.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Map<Kind, Integer>> byNamespace = new TreeMap<>();
        List<String> legacy = new ArrayList<>();
        for (Found f : misplaced) {
            if (f.kind() == Kind.LegacyConfigMap) {
                legacy.add(f.namespace() + "/" + f.name());
            } else {
                byNamespace.computeIfAbsent(f.namespace(), n -> new TreeMap<>()).merge(f.kind(), 1, Integer::sum);
            }
        }
        List<String> parts = new ArrayList<>();
        byNamespace.forEach((namespace, counts) -> parts.add(listed(counts.entrySet().stream()
                        .map(e -> e.getKey().counted(e.getValue()))
                        .toList())
                + " in " + namespace));
        if (!legacy.isEmpty()) {
            parts.add("MetalLB's legacy ConfigMap " + String.join(", ", legacy));
        }
        return Optional.of(
                "found " + listed(parts) + ", which lbk8s does not read: run \"" + migrateCommand(ownNamespace) + "\"");
    }

    /** "a", "a and b", "a, b and c". */
    private static String listed(List<String> parts) {
        return parts.size() == 1
                ? parts.getFirst()
                : String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.getLast();
    }

    /** The allocator's "no address pool is configured", with where lbk8s reads and what it found elsewhere. */
    public static String noPools(String noPoolsMessage, String ownNamespace, List<Found> misplaced) {
        return noPoolsMessage + " in namespace " + ownNamespace
                + summary(ownNamespace, misplaced).map(s -> "; " + s).orElse("");
    }

    /** The Warning on one misplaced object, written where {@code kubectl describe} shows it. */
    public static String notRead(String ownNamespace, Found found) {
        String what = switch (found.kind()) {
            case IPAddressPool, L2Advertisement, BGPPeer, BGPAdvertisement, Community, BFDProfile ->
                "lbk8s reads " + found.kind().plural + " only in namespace " + ownNamespace
                        + ", so it does not use this one";
            case LegacyConfigMap -> "this is MetalLB's legacy (before 0.13) configuration, which lbk8s does not read";
        };
        return what + ": run \"" + migrateCommand(ownNamespace) + "\" to see it moved into " + ownNamespace;
    }
}

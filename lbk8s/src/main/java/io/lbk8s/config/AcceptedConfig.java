package io.lbk8s.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The configuration a component uses, object by object: every object whose current version is valid, and for an
 * object whose current version is refused, the version this component accepted last, if any. One bad object then
 * never blocks the others, and editing a pool into something invalid never takes away the addresses it gave out.
 *
 * <p>The unit is the object: an IPAddressPool, an L2Advertisement, a BGPPeer, a BGPAdvertisement, a Community, a
 * BFDProfile, or the lbk8s ConfigMap as a whole. Conflicts
 * between objects (overlaps, a pool name defined twice) are blamed on the object that is not established (new or
 * changed since it was last accepted), then on the one created later; see {@link ConfigParser}.
 *
 * <p>Immutable and pure: {@link #accept} returns the next state with the outcome.
 */
public final class AcceptedConfig {

    /** Nothing accepted yet: what a component has when it starts, and what {@code lbk8s status} judges with. */
    public static final AcceptedConfig NONE = new AcceptedConfig(new ConfigSources(List.of(), List.of(), List.of()));

    private final ConfigSources accepted;

    private AcceptedConfig(ConfigSources accepted) {
        this.accepted = accepted;
    }

    /** The state whose accepted versions are {@code accepted}: what a component recorded, read back after a restart. */
    public static AcceptedConfig of(ConfigSources accepted) {
        return new AcceptedConfig(accepted);
    }

    /** The version of each object in use, to record where another component (or a restart) can read it. */
    public ConfigSources sources() {
        return accepted;
    }

    /**
     * The outcome of reading the configuration once.
     *
     * @param result  every problem of the current objects, and the configuration in use (valid by construction)
     * @param kept    refused objects whose last accepted version stays in use
     * @param unused  refused objects with no accepted version: not in use until fixed
     * @param next    the state to judge the next change with
     */
    public record Outcome(ConfigResult result, Set<ConfigOrigin> kept, Set<ConfigOrigin> unused, AcceptedConfig next) {
        public Outcome {
            kept = Set.copyOf(kept);
            unused = Set.copyOf(unused);
        }
    }

    public Outcome accept(ConfigSources now) {
        Map<ConfigOrigin, Object> before = versions(accepted);
        Map<ConfigOrigin, Object> current = versions(now);
        Set<ConfigOrigin> unchanged = new HashSet<>();
        current.forEach((origin, version) -> {
            if (version.equals(before.get(origin))) {
                unchanged.add(origin);
            }
        });

        ConfigResult first = ConfigParser.parse(now, unchanged);
        List<ConfigProblem> problems = new ArrayList<>(first.problems());
        Set<ConfigOrigin> refused = new LinkedHashSet<>(errorOrigins(first));
        // Each round refuses at least one more object, and an object kept at its accepted version is never refused
        // again (accepted versions were valid together), so this ends within one round per object.
        for (int rounds = 0; ; rounds++) {
            Set<ConfigOrigin> kept = new HashSet<>(refused);
            kept.retainAll(before.keySet());
            ConfigSources effective = substitute(now, refused, before);
            Set<ConfigOrigin> established = new HashSet<>(unchanged);
            established.addAll(kept);
            ConfigResult round = ConfigParser.parse(effective, established);
            Set<ConfigOrigin> more = errorOrigins(round);
            more.removeAll(refused);
            if (more.isEmpty() || rounds > current.size()) {
                Set<ConfigOrigin> unused = new HashSet<>(refused);
                unused.removeAll(kept);
                return new Outcome(
                        new ConfigResult(round.config(), problems), kept, unused, new AcceptedConfig(effective));
            }
            for (ConfigProblem problem : round.problems()) {
                if (more.contains(problem.origin()) && problem.severity() == ConfigProblem.Severity.ERROR) {
                    problems.add(problem);
                }
            }
            refused.addAll(more);
        }
    }

    private static Set<ConfigOrigin> errorOrigins(ConfigResult result) {
        Set<ConfigOrigin> origins = new LinkedHashSet<>();
        for (ConfigProblem problem : result.problems()) {
            if (problem.severity() == ConfigProblem.Severity.ERROR) {
                origins.add(problem.origin());
            }
        }
        return origins;
    }

    /** {@code now}, with each refused object replaced by its accepted version, or left out when it has none. */
    private static ConfigSources substitute(
            ConfigSources now, Set<ConfigOrigin> refused, Map<ConfigOrigin, Object> before) {
        return new ConfigSources(
                substitute(now.ipAddressPools(), ConfigOrigin.Kind.IPAddressPool, refused, before),
                substitute(now.l2Advertisements(), ConfigOrigin.Kind.L2Advertisement, refused, before),
                substitute(now.configMaps(), AcceptedConfig::origin, refused, before, ConfigSources.RawConfigMap.class),
                substitute(now.bgpPeers(), ConfigOrigin.Kind.BGPPeer, refused, before),
                substitute(now.bgpAdvertisements(), ConfigOrigin.Kind.BGPAdvertisement, refused, before),
                substitute(now.communities(), ConfigOrigin.Kind.Community, refused, before),
                substitute(now.bfdProfiles(), ConfigOrigin.Kind.BFDProfile, refused, before));
    }

    private static List<ConfigSources.RawObject> substitute(
            List<ConfigSources.RawObject> objects,
            ConfigOrigin.Kind kind,
            Set<ConfigOrigin> refused,
            Map<ConfigOrigin, Object> before) {
        return substitute(objects, o -> origin(kind, o), refused, before, ConfigSources.RawObject.class);
    }

    private static <T> List<T> substitute(
            List<T> objects,
            Function<T, ConfigOrigin> originOf,
            Set<ConfigOrigin> refused,
            Map<ConfigOrigin, Object> before,
            Class<T> type) {
        List<T> out = new ArrayList<>();
        for (T object : objects) {
            ConfigOrigin origin = originOf.apply(object);
            if (!refused.contains(origin)) {
                out.add(object);
            } else if (type.isInstance(before.get(origin))) {
                out.add(type.cast(before.get(origin)));
            }
        }
        return out;
    }

    private static Map<ConfigOrigin, Object> versions(ConfigSources sources) {
        Map<ConfigOrigin, Object> versions = new HashMap<>();
        sources.ipAddressPools().forEach(o -> versions.put(origin(ConfigOrigin.Kind.IPAddressPool, o), o));
        sources.l2Advertisements().forEach(o -> versions.put(origin(ConfigOrigin.Kind.L2Advertisement, o), o));
        sources.configMaps().forEach(c -> versions.put(origin(c), c));
        sources.bgpPeers().forEach(o -> versions.put(origin(ConfigOrigin.Kind.BGPPeer, o), o));
        sources.bgpAdvertisements().forEach(o -> versions.put(origin(ConfigOrigin.Kind.BGPAdvertisement, o), o));
        sources.communities().forEach(o -> versions.put(origin(ConfigOrigin.Kind.Community, o), o));
        sources.bfdProfiles().forEach(o -> versions.put(origin(ConfigOrigin.Kind.BFDProfile, o), o));
        return versions;
    }

    private static ConfigOrigin origin(ConfigOrigin.Kind kind, ConfigSources.RawObject object) {
        return new ConfigOrigin(kind, object.namespace(), object.name());
    }

    private static ConfigOrigin origin(ConfigSources.RawConfigMap configMap) {
        return new ConfigOrigin(ConfigOrigin.Kind.ConfigMap, configMap.namespace(), configMap.name());
    }
}

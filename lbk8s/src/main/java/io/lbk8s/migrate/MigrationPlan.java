package io.lbk8s.migrate;

import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.ConfigParser;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.config.ConfigSources;
import io.lbk8s.config.ConfigSources.RawConfigMap;
import io.lbk8s.config.ConfigSources.RawObject;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@code lbk8s migrate} does, decided before anything is written: MetalLB's objects of other namespaces
 * (IPAddressPools, L2Advertisements, BGPPeers, BGPAdvertisements, Communities, BFDProfiles) copied, and MetalLB's
 * legacy ConfigMaps converted ({@link LegacyConfig}, layer 2 only), into lbk8s's namespace.
 * It refuses, creating nothing, when a name would stand for two different specs or when lbk8s would reject the
 * configuration that results. It never deletes: it says how to delete the originals. Pure.
 */
public record MigrationPlan(
        List<Manifest> create,
        List<Manifest> unchanged,
        List<String> refusals,
        List<String> leftOut,
        List<String> deleteCommands) {

    /**
     * The kinds copied, each before the kinds that name it (a pool before its advertisements, a BFDProfile before the
     * BGPPeer that names it), which is the order they are created in.
     */
    public static final List<ConfigOrigin.Kind> KINDS = List.of(
            ConfigOrigin.Kind.IPAddressPool,
            ConfigOrigin.Kind.Community,
            ConfigOrigin.Kind.BFDProfile,
            ConfigOrigin.Kind.BGPPeer,
            ConfigOrigin.Kind.L2Advertisement,
            ConfigOrigin.Kind.BGPAdvertisement);

    /**
     * Everything found in the cluster.
     *
     * @param objects          MetalLB's objects of every namespace by kind (lbk8s's own included: they are the ones
     *                         already there); a kind not given has none
     * @param legacyConfigMaps MetalLB's legacy ConfigMaps, each with the text of its {@code config} key
     * @param lbk8sConfig      the lbk8s ConfigMap in lbk8s's namespace, which the result must agree with
     */
    public record Found(
            Map<ConfigOrigin.Kind, List<RawObject>> objects,
            List<RawConfigMap> legacyConfigMaps,
            Optional<RawConfigMap> lbk8sConfig) {
        public Found {
            objects = Map.copyOf(objects);
            legacyConfigMaps = List.copyOf(legacyConfigMaps);
        }

        List<RawObject> of(ConfigOrigin.Kind kind) {
            return objects.getOrDefault(kind, List.of());
        }
    }

    public boolean refused() {
        return !refusals.isEmpty();
    }

    public boolean nothingToDo() {
        return create.isEmpty() && unchanged.isEmpty() && refusals.isEmpty() && leftOut.isEmpty();
    }

    /** @param fromNamespaces the namespaces to migrate from; empty for every namespace but {@code target} */
    public static MigrationPlan of(String target, Set<String> fromNamespaces, Found found) {
        List<String> refusals = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        Map<String, Manifest> wanted = new LinkedHashMap<>();
        Map<String, List<String>> toDelete = new TreeMap<>();
        for (ConfigOrigin.Kind kind : KINDS) {
            for (RawObject o : found.of(kind)) {
                if (!o.namespace().equals(target) && from(fromNamespaces, o.namespace())) {
                    Map<String, Object> spec = o.spec() instanceof Map<?, ?> m ? stringKeys(m) : Map.of();
                    if (kind == ConfigOrigin.Kind.BGPPeer) {
                        spec = passwordSecretIn(target, o, spec, leftOut);
                    }
                    want(
                            wanted,
                            new Manifest(kind, o.name(), o.labels(), spec, kind + " " + o.namespace() + "/" + o.name()),
                            refusals);
                    toDelete.computeIfAbsent(resource(kind) + " -n " + o.namespace(), k -> new ArrayList<>())
                            .add(o.name());
                }
            }
        }
        for (RawConfigMap legacy : found.legacyConfigMaps()) {
            if (from(fromNamespaces, legacy.namespace())) {
                LegacyConfig.Conversion conversion = LegacyConfig.convert(
                        "ConfigMap " + legacy.namespace() + "/" + legacy.name(), legacy.configYaml());
                conversion.manifests().forEach(m -> want(wanted, m, refusals));
                leftOut.addAll(conversion.leftOut());
                toDelete.computeIfAbsent("configmap -n " + legacy.namespace(), k -> new ArrayList<>())
                        .add(legacy.name());
            }
        }
        List<Manifest> create = new ArrayList<>();
        List<Manifest> unchanged = new ArrayList<>();
        for (Manifest m : wanted.values()) {
            Optional<RawObject> existing = found.of(m.kind()).stream()
                    .filter(o -> o.namespace().equals(target) && o.name().equals(m.name()))
                    .findFirst();
            if (existing.isEmpty()) {
                create.add(m);
            } else if (m.sameSpec(existing.get().spec())) {
                unchanged.add(m);
            } else {
                refusals.add(m.kind() + " " + Quoted.of(m.name()) + " already exists in " + target
                        + " with another spec than the one from " + m.from() + ": rename or remove one of them");
            }
        }
        if (refusals.isEmpty()) {
            invalidResult(target, found, create).forEach(p -> refusals.add("lbk8s would reject the result: " + p));
        }
        List<String> deleteCommands = new ArrayList<>();
        toDelete.forEach((where, names) ->
                deleteCommands.add("kubectl delete " + where + " " + String.join(" ", new TreeSet<>(names))));
        return refusals.isEmpty()
                ? new MigrationPlan(create, unchanged, refusals, leftOut, deleteCommands)
                : new MigrationPlan(List.of(), List.of(), refusals, leftOut, List.of());
    }

    private static boolean from(Set<String> fromNamespaces, String namespace) {
        return fromNamespaces.isEmpty() || fromNamespaces.contains(namespace);
    }

    private static String resource(ConfigOrigin.Kind kind) {
        String plural = switch (kind) {
            case Community -> "communities";
            case ConfigMap -> throw new IllegalArgumentException("not a metallb.io kind: " + kind);
            default -> kind.name().toLowerCase(Locale.ROOT) + "s";
        };
        return plural + ".metallb.io";
    }

    /**
     * A BGPPeer's passwordSecret names a Secret of the BGPPeer's namespace, which migrate does not copy (it reads no
     * Secret): the copy names the Secret of the same name in {@code target}, and the user is told to create it.
     */
    private static Map<String, Object> passwordSecretIn(
            String target, RawObject peer, Map<String, Object> spec, List<String> leftOut) {
        if (!(spec.get("passwordSecret") instanceof Map<?, ?> reference)
                || !(reference.get("name") instanceof String name)
                || name.isEmpty()) {
            return spec;
        }
        Map<String, Object> copy = new LinkedHashMap<>(spec);
        copy.put("passwordSecret", Map.of("name", name)); // without a namespace: the BGPPeer's own, target
        leftOut.add("BGPPeer " + peer.namespace() + "/" + peer.name() + ": its passwordSecret " + Quoted.of(name)
                + " is a Secret in " + peer.namespace() + ", which lbk8s migrate does not copy: create Secret "
                + Quoted.of(name) + " in " + target + " with the same password (key \"password\")");
        return copy;
    }

    /** Two sources of one name must agree; the first one found is kept. */
    private static void want(Map<String, Manifest> wanted, Manifest m, List<String> refusals) {
        Manifest before = wanted.putIfAbsent(m.kind() + "/" + m.name(), m);
        if (before != null && !before.sameSpec(m.spec())) {
            refusals.add(m.kind() + " " + Quoted.of(m.name()) + " comes from both " + before.from() + " and " + m.from()
                    + " with different specs: rename or remove one of them");
        }
    }

    /** The errors lbk8s would report on its namespace's configuration once the plan is applied. */
    private static List<String> invalidResult(String target, Found found, List<Manifest> create) {
        Map<ConfigOrigin.Kind, List<RawObject>> result = new EnumMap<>(ConfigOrigin.Kind.class);
        KINDS.forEach(kind -> result.put(kind, new ArrayList<>(inTarget(target, found.of(kind)))));
        for (Manifest m : create) {
            result.get(m.kind()).add(new RawObject(target, m.name(), m.labels(), m.spec()));
        }
        ConfigResult parsed = ConfigParser.parse(new ConfigSources(
                result.get(ConfigOrigin.Kind.IPAddressPool),
                result.get(ConfigOrigin.Kind.L2Advertisement),
                found.lbk8sConfig().stream().toList(),
                result.get(ConfigOrigin.Kind.BGPPeer),
                result.get(ConfigOrigin.Kind.BGPAdvertisement),
                result.get(ConfigOrigin.Kind.Community),
                result.get(ConfigOrigin.Kind.BFDProfile)));
        return parsed.problems().stream()
                .filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                .map(ConfigProblem::toString)
                .toList();
    }

    private static List<RawObject> inTarget(String target, List<RawObject> objects) {
        return objects.stream().filter(o -> o.namespace().equals(target)).toList();
    }

    private static Map<String, Object> stringKeys(Map<?, ?> map) {
        Map<String, Object> out = new LinkedHashMap<>();
        map.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }
}

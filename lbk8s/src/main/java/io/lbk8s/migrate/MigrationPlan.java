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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@code lbk8s migrate} does, decided before anything is written: the IPAddressPools and L2Advertisements of
 * other namespaces copied, and MetalLB's legacy ConfigMaps converted ({@link LegacyConfig}), into lbk8s's namespace.
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
     * Everything found in the cluster.
     *
     * @param pools            IPAddressPools of every namespace (lbk8s's own included: they are the ones already there)
     * @param legacyConfigMaps MetalLB's legacy ConfigMaps, each with the text of its {@code config} key
     * @param lbk8sConfig      the lbk8s ConfigMap in lbk8s's namespace, which the result must agree with
     */
    public record Found(
            List<RawObject> pools,
            List<RawObject> l2Advertisements,
            List<RawConfigMap> legacyConfigMaps,
            Optional<RawConfigMap> lbk8sConfig) {}

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
        for (ConfigOrigin.Kind kind : List.of(ConfigOrigin.Kind.IPAddressPool, ConfigOrigin.Kind.L2Advertisement)) {
            for (RawObject o : kind == ConfigOrigin.Kind.IPAddressPool ? found.pools() : found.l2Advertisements()) {
                if (!o.namespace().equals(target) && from(fromNamespaces, o.namespace())) {
                    Map<String, Object> spec = o.spec() instanceof Map<?, ?> m ? stringKeys(m) : Map.of();
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
            Optional<RawObject> existing = (m.kind() == ConfigOrigin.Kind.IPAddressPool
                            ? found.pools()
                            : found.l2Advertisements())
                    .stream()
                            .filter(o ->
                                    o.namespace().equals(target) && o.name().equals(m.name()))
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
        return kind == ConfigOrigin.Kind.IPAddressPool ? "ipaddresspools.metallb.io" : "l2advertisements.metallb.io";
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
        List<RawObject> pools = new ArrayList<>(inTarget(target, found.pools()));
        List<RawObject> l2 = new ArrayList<>(inTarget(target, found.l2Advertisements()));
        for (Manifest m : create) {
            RawObject o = new RawObject(target, m.name(), m.labels(), m.spec());
            (m.kind() == ConfigOrigin.Kind.IPAddressPool ? pools : l2).add(o);
        }
        ConfigResult result = ConfigParser.parse(
                new ConfigSources(pools, l2, found.lbk8sConfig().stream().toList()));
        return result.problems().stream()
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

package io.lbk8s.config;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.text.Quoted;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.dataformat.yaml.YAMLMapper;

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
 */
public final class ConfigParser {
    private ConfigParser() {}

    /** JSON types of the fields the parser reads; {@code CrdSchemaTest} checks them against deploy/crds. */
    enum FieldType {
        STRING, BOOLEAN, INTEGER, OBJECT, STRING_LIST, SELECTOR_LIST, STRING_MAP, REQUIREMENT_LIST, OBJECT_LIST
    }

    /** A field the parser reads, with the JSON type it expects. */
    record Field(String name, FieldType type) {}

    static final List<Field> POOL_SPEC_FIELDS = List.of(
            new Field("addresses", FieldType.STRING_LIST),
            new Field("autoAssign", FieldType.BOOLEAN),
            new Field("avoidBuggyIPs", FieldType.BOOLEAN),
            new Field("serviceAllocation", FieldType.OBJECT));

    static final List<Field> SERVICE_ALLOCATION_FIELDS = List.of(
            new Field("priority", FieldType.INTEGER),
            new Field("namespaces", FieldType.STRING_LIST),
            new Field("namespaceSelectors", FieldType.SELECTOR_LIST),
            new Field("serviceSelectors", FieldType.SELECTOR_LIST));

    static final List<Field> L2_SPEC_FIELDS = List.of(
            new Field("ipAddressPools", FieldType.STRING_LIST),
            new Field("ipAddressPoolSelectors", FieldType.SELECTOR_LIST),
            new Field("nodeSelectors", FieldType.SELECTOR_LIST),
            new Field("preferredNodeSelectors", FieldType.OBJECT_LIST),
            new Field("interfaces", FieldType.STRING_LIST));

    static final List<Field> PREFERRED_NODE_SELECTOR_FIELDS = List.of(
            new Field("weight", FieldType.INTEGER),
            new Field("preference", FieldType.OBJECT));

    /** L2Advertisement fields MetalLB has and lbk8s does not implement: ignoring them would change who announces what. */
    static final List<Field> L2_REFUSED_FIELDS = List.of(new Field("serviceSelectors", FieldType.SELECTOR_LIST));

    static final List<Field> SELECTOR_FIELDS = List.of(
            new Field("matchLabels", FieldType.STRING_MAP),
            new Field("matchExpressions", FieldType.REQUIREMENT_LIST));

    static final List<Field> REQUIREMENT_FIELDS = List.of(
            new Field("key", FieldType.STRING),
            new Field("operator", FieldType.STRING),
            new Field("values", FieldType.STRING_LIST));

    /** A ConfigMap pool: a name, then the same fields as an IPAddressPool spec. */
    static final List<Field> CONFIGMAP_POOL_FIELDS = concat(List.of(new Field("name", FieldType.STRING)), POOL_SPEC_FIELDS);

    static final List<Field> CONFIGMAP_FIELDS = List.of(new Field("pools", FieldType.OBJECT_LIST));

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // we read document after document
            .build();

    private static final Comparator<ConfigSources.RawObject> BY_NAMESPACE_AND_NAME = Comparator
            .comparing((ConfigSources.RawObject o) -> String.valueOf(o.namespace()))
            .thenComparing(o -> String.valueOf(o.name()))
            // two objects never share a namespace and name in a cluster; if a caller passes such, still be deterministic
            .thenComparing(o -> String.valueOf(o.spec()) + " " + new java.util.TreeMap<>(o.labels()));

    public static ConfigResult parse(ConfigSources sources) {
        return parse(sources, Set.of());
    }

    /** Parses with the objects in {@code established} defined before all others (see the class comment). */
    public static ConfigResult parse(ConfigSources sources, Set<ConfigOrigin> established) {
        List<ConfigProblem> problems = new ArrayList<>();
        List<PoolDraft> drafts = new ArrayList<>();

        for (ConfigSources.RawObject raw : sorted(sources.ipAddressPools(), BY_NAMESPACE_AND_NAME)) {
            PoolDraft draft = poolFromResource(raw, problems);
            draft.precedence = new Precedence(!established.contains(draft.scope.origin), raw.createdAt(), 0,
                    String.valueOf(raw.namespace()), String.valueOf(raw.name()), 0);
            drafts.add(draft);
        }
        List<ConfigSources.RawConfigMap> configMaps = new ArrayList<>(sources.configMaps());
        configMaps.sort(Comparator.comparing((ConfigSources.RawConfigMap c) -> String.valueOf(c.namespace()))
                .thenComparing(c -> String.valueOf(c.name())));
        for (ConfigSources.RawConfigMap configMap : configMaps) {
            List<PoolDraft> fromMap = poolsFromConfigMap(configMap, problems);
            for (int i = 0; i < fromMap.size(); i++) {
                PoolDraft draft = fromMap.get(i);
                draft.precedence = new Precedence(!established.contains(draft.scope.origin), configMap.createdAt(), 1,
                        String.valueOf(configMap.namespace()), String.valueOf(configMap.name()), i);
            }
            drafts.addAll(fromMap);
        }

        for (PoolDraft draft : drafts) {
            judgeSpecialPurpose(draft, established.contains(draft.scope.origin));
        }
        drafts.sort(Comparator.comparing((PoolDraft d) -> d.precedence, Precedence.ORDER));

        // Pool names are global; the first definition wins.
        Map<String, PoolDraft> byName = new HashMap<>();
        List<PoolDraft> named = new ArrayList<>();
        for (PoolDraft draft : drafts) {
            if (draft.name == null) {
                continue;
            }
            PoolDraft first = byName.putIfAbsent(draft.name, draft);
            if (first != null) {
                draft.scope.error("pool name " + Quoted.of(draft.name) + " is already defined by " + first.definedAt);
            } else {
                named.add(draft);
            }
        }

        checkOverlapsBetweenPools(named);

        List<AddressPool> pools = new ArrayList<>();
        for (PoolDraft draft : named) {
            if (!draft.scope.failed) {
                pools.add(draft.toPool());
            }
        }
        pools.sort(Comparator.comparing(AddressPool::name));

        List<L2Advertisement> advertisements = new ArrayList<>();
        for (ConfigSources.RawObject raw : sorted(sources.l2Advertisements(), BY_NAMESPACE_AND_NAME)) {
            l2FromResource(raw, byName.keySet(), problems).ifPresent(advertisements::add);
        }
        advertisements.sort(Comparator.comparing(L2Advertisement::name)
                .thenComparing(a -> String.valueOf(a.origin().namespace())));

        return new ConfigResult(new Config(pools, advertisements), problems);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Pools

    private static PoolDraft poolFromResource(ConfigSources.RawObject raw, List<ConfigProblem> problems) {
        ConfigOrigin origin = new ConfigOrigin(ConfigOrigin.Kind.IPAddressPool, raw.namespace(), raw.name());
        Scope scope = new Scope(origin, "", problems);
        String name = raw.name() == null || raw.name().isEmpty() ? null : raw.name();
        if (name == null) {
            scope.error("metadata.name is required");
        }
        PoolDraft draft = new PoolDraft(name, scope, raw.labels(), origin.toString());
        if (raw.spec() == null) {
            scope.error("spec is required: expected a map with at least \"addresses\"");
            return draft;
        }
        if (!(raw.spec() instanceof Map<?, ?> spec)) {
            scope.error("spec: expected a map, got " + describe(raw.spec()));
            return draft;
        }
        warnUnknown(scope, "spec", spec, POOL_SPEC_FIELDS);
        parsePoolBody(scope, "", spec, draft);
        return draft;
    }

    private static List<PoolDraft> poolsFromConfigMap(ConfigSources.RawConfigMap configMap, List<ConfigProblem> problems) {
        ConfigOrigin origin = new ConfigOrigin(ConfigOrigin.Kind.ConfigMap, configMap.namespace(), configMap.name());
        Scope top = new Scope(origin, "", problems);
        if (configMap.configYaml() == null) {
            top.warn("has no config.yaml key, so it defines no pools");
            return List.of();
        }
        List<Object> documents;
        try {
            documents = readDocuments(configMap.configYaml());
        } catch (JacksonException e) {
            String where = e.getLocation() == null || e.getLocation().getLineNr() < 1 ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            String reason = firstLine(e.getOriginalMessage());
            top.error("config.yaml is not valid YAML" + where + ": " + reason);
            return List.of();
        }
        if (documents.size() > 1) {
            top.error("config.yaml has " + documents.size() + " YAML documents; expected one");
            return List.of();
        }
        Object document = documents.isEmpty() ? null : documents.getFirst();
        if (document == null) {
            return List.of(); // empty or only comments: no pools
        }
        if (!(document instanceof Map<?, ?> root)) {
            top.error("config.yaml: expected a map with a \"pools\" list, got " + describe(document));
            return List.of();
        }
        for (String key : unknownKeys(root, CONFIGMAP_FIELDS)) {
            top.warn("config.yaml: unknown field " + Quoted.of(key) + " is ignored");
        }
        Object poolsValue = root.get("pools");
        if (poolsValue == null) {
            return List.of();
        }
        if (!(poolsValue instanceof List<?> list)) {
            top.error("pools: expected a list of pools, got " + describe(poolsValue));
            return List.of();
        }
        List<PoolDraft> drafts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "pools[" + i + "]";
            Object item = list.get(i);
            if (!(item instanceof Map<?, ?> poolMap)) {
                top.error(path + ": expected a map with \"name\" and \"addresses\", got " + describe(item));
                continue;
            }
            Object nameValue = poolMap.get("name");
            String name = null;
            Scope scope;
            if (nameValue == null) {
                scope = new Scope(origin, path + ": ", problems);
                scope.error("name is required: expected a non-empty string");
            } else if (!(nameValue instanceof String s)) {
                scope = new Scope(origin, path + ": ", problems);
                scope.error("name: expected a string, got " + describe(nameValue));
            } else if (s.isBlank()) {
                scope = new Scope(origin, path + ": ", problems);
                scope.error("name is required: expected a non-empty string, got an empty string");
            } else {
                name = s;
                scope = new Scope(origin, path + " " + Quoted.of(s) + ": ", problems);
            }
            PoolDraft draft = new PoolDraft(name, scope, Map.of(), origin + " " + path);
            warnUnknown(scope, "", poolMap, CONFIGMAP_POOL_FIELDS);
            parsePoolBody(scope, "", poolMap, draft);
            if (name != null) {
                drafts.add(draft);
            }
        }
        return drafts;
    }

    /** Reads addresses, autoAssign, avoidBuggyIPs and serviceAllocation into the draft; checks the pool on its own. */
    private static void parsePoolBody(Scope scope, String base, Map<?, ?> body, PoolDraft draft) {
        String addressesPath = path(base, "addresses");
        Object addresses = body.get("addresses");
        boolean addressesOk = false;
        if (addresses == null) {
            scope.error(addressesPath + " is required: expected a list of CIDRs, ranges or IP addresses");
        } else if (!(addresses instanceof List<?> list)) {
            scope.error(addressesPath + ": expected a list of CIDRs, ranges or IP addresses, got " + describe(addresses));
        } else if (list.isEmpty()) {
            scope.error(addressesPath + ": expected at least one CIDR, range or IP address, got an empty list");
        } else {
            addressesOk = true;
            for (int i = 0; i < list.size(); i++) {
                String entryPath = addressesPath + "[" + i + "]";
                Object item = list.get(i);
                if (!(item instanceof String text)) {
                    scope.error(entryPath + ": expected a string (a CIDR, a range or an IP address), got " + describe(item));
                    addressesOk = false;
                    continue;
                }
                switch (IpRange.parse(text)) {
                    case IpRange.Parsed.Invalid(String reason) -> {
                        scope.error(entryPath + " " + Quoted.of(text) + ": " + reason);
                        addressesOk = false;
                    }
                    case IpRange.Parsed.Valid(IpRange range) -> {
                        if (range.isCidrWithHostBits()) {
                            scope.warn(entryPath + " " + Quoted.of(text) + ": host bits are set; this means "
                                    + range.first() + "/" + prefixOf(text));
                        }
                        RangeEntry entry = new RangeEntry(range, i, entryPath, draft);
                        // judged once the parser knows whether the pool is established (see judgeSpecialPurpose); in
                        // the draft meanwhile, so that an overlap with another pool is reported too
                        SpecialPurposeRanges.problem(range).ifPresent(why -> draft.special.add(new SpecialEntry(entry, why)));
                        draft.ranges.add(entry);
                    }
                }
            }
        }

        draft.autoAssign = bool(scope, body, path(base, "autoAssign"), "autoAssign", true);
        draft.avoidBuggyIPs = bool(scope, body, path(base, "avoidBuggyIPs"), "avoidBuggyIPs", false);

        Object allocation = body.get("serviceAllocation");
        if (allocation != null) {
            draft.serviceAllocation = parseServiceAllocation(scope, path(base, "serviceAllocation"), allocation);
        }

        checkOverlapsInsidePool(draft);

        if (addressesOk && draft.avoidBuggyIPs && !draft.ranges.isEmpty()) {
            boolean any = false;
            for (RangeEntry entry : draft.ranges) {
                if (hasUsableAddress(entry.range)) {
                    any = true;
                } else {
                    scope.warn(entry.path + " " + Quoted.of(entry.range.text())
                            + ": avoidBuggyIPs excludes every address of this entry");
                }
            }
            if (!any) {
                scope.error(path(base, "avoidBuggyIPs")
                        + ": excludes every address of the pool (IPv4 addresses ending in .0 or .255), so it has none to assign");
            }
        }
    }

    /**
     * An entry with special-purpose addresses refuses its pool, as any bad entry does. Only in a pool accepted before
     * lbk8s refused them (established, unchanged since) is it dropped with a warning instead, and the pool keeps its
     * other entries: an upgrade never takes away the addresses Services hold in them.
     */
    private static void judgeSpecialPurpose(PoolDraft draft, boolean established) {
        for (SpecialEntry special : draft.special) {
            RangeEntry entry = special.entry();
            String where = entry.path() + " " + Quoted.of(entry.range().text()) + ": " + special.why();
            if (!established) {
                draft.scope.error(where);
                continue;
            }
            draft.scope.warn(where + "; this pool was accepted before lbk8s refused such addresses, so lbk8s keeps"
                    + " using it without this entry: remove the entry");
            draft.ranges.remove(entry);
        }
        if (established && !draft.special.isEmpty() && draft.ranges.isEmpty()) {
            draft.scope.error("addresses: every entry holds special-purpose addresses, so the pool has none to give");
        }
    }

    /** Whether the range has an address that avoidBuggyIPs allows (any IPv6, or an IPv4 not ending .0/.255). */
    private static boolean hasUsableAddress(IpRange range) {
        if (range.family() == IpFamily.IPv6 || range.size() >= 3) {
            return true; // any three consecutive IPv4 addresses include one ending in 1..254
        }
        for (long offset = 0; offset < range.size(); offset++) {
            IpAddress ip = range.at(offset).orElseThrow();
            if (ip.lastByte() != 0 && ip.lastByte() != 255) {
                return true;
            }
        }
        return false;
    }

    private static Optional<ServiceAllocation> parseServiceAllocation(Scope scope, String base, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(base + ": expected a map, got " + describe(value));
            return Optional.empty();
        }
        warnUnknown(scope, base, map, SERVICE_ALLOCATION_FIELDS);
        int priority = 0;
        Object priorityValue = map.get("priority");
        if (priorityValue != null) {
            Integer parsed = integer(scope, path(base, "priority"), priorityValue);
            if (parsed != null) {
                priority = parsed;
            }
        }
        Set<String> namespaces = new LinkedHashSet<>();
        List<String> listed = strings(scope, path(base, "namespaces"), map.get("namespaces"), "namespace names");
        for (int i = 0; i < listed.size(); i++) {
            String namespace = listed.get(i);
            String entryPath = path(base, "namespaces") + "[" + i + "]";
            if (!namespaces.add(namespace)) {
                scope.warn(entryPath + ": namespace " + Quoted.of(namespace) + " is listed twice");
            } else if (!DNS_LABEL.matcher(namespace).matches()) {
                scope.warn(entryPath + ": " + Quoted.of(namespace) + " is not a valid namespace name, so it matches no namespace");
            }
        }
        List<LabelSelector> namespaceSelectors = selectors(scope, path(base, "namespaceSelectors"), map.get("namespaceSelectors"));
        List<LabelSelector> serviceSelectors = selectors(scope, path(base, "serviceSelectors"), map.get("serviceSelectors"));
        return Optional.of(new ServiceAllocation(priority, namespaces, namespaceSelectors, serviceSelectors));
    }

    private static void checkOverlapsInsidePool(PoolDraft draft) {
        List<RangeEntry> entries = new ArrayList<>(draft.ranges);
        entries.sort(RANGE_ORDER);
        RangeEntry reach = null; // the entry reaching highest so far, in the current family
        for (RangeEntry entry : entries) {
            if (reach != null && reach.range.family() == entry.range.family()
                    && reach.range.last().compareTo(entry.range.first()) >= 0) {
                // name the entry listed later as the one that overlaps
                RangeEntry later = entry.index > reach.index ? entry : reach;
                RangeEntry earlier = later == entry ? reach : entry;
                draft.scope.error(later.path + " " + Quoted.of(later.range.text()) + " overlaps " + earlier.path + " "
                        + Quoted.of(earlier.range.text()) + " of the same pool");
            }
            if (reach == null || reach.range.family() != entry.range.family()
                    || entry.range.last().compareTo(reach.range.last()) > 0) {
                reach = entry;
            }
        }
    }

    /**
     * Takes pools in definition order and keeps the ranges of each pool that passes in a map by first address; a
     * range overlaps a kept one iff the kept range starting at or below it reaches it, or the next kept range starts
     * within it (kept ranges never overlap). A pool that already failed is checked last, for the report only.
     */
    private static void checkOverlapsBetweenPools(List<PoolDraft> pools) {
        NavigableMap<IpAddress, RangeEntry> kept = new TreeMap<>();
        List<PoolDraft> passing = pools.stream().filter(p -> !p.scope.failed).toList();
        List<PoolDraft> failedAlready = pools.stream().filter(p -> p.scope.failed).toList();
        for (PoolDraft pool : passing) {
            reportOverlaps(pool, kept);
            if (!pool.scope.failed) {
                pool.ranges.forEach(entry -> kept.put(entry.range.first(), entry));
            }
        }
        failedAlready.forEach(pool -> reportOverlaps(pool, kept));
    }

    private static void reportOverlaps(PoolDraft pool, NavigableMap<IpAddress, RangeEntry> kept) {
        for (RangeEntry entry : pool.ranges) {
            Map.Entry<IpAddress, RangeEntry> below = kept.floorEntry(entry.range.first());
            Map.Entry<IpAddress, RangeEntry> above = kept.ceilingEntry(entry.range.first());
            Optional.ofNullable(below).map(Map.Entry::getValue).filter(k -> k.range.overlaps(entry.range))
                    .or(() -> Optional.ofNullable(above).map(Map.Entry::getValue).filter(k -> k.range.overlaps(entry.range)))
                    .ifPresent(other -> pool.scope.error(entry.path + " " + Quoted.of(entry.range.text()) + " overlaps "
                            + other.path + " " + Quoted.of(other.range.text()) + " of pool " + Quoted.of(other.pool.name)
                            + " (" + other.pool.definedAt + ")"));
        }
    }

    private static final Comparator<RangeEntry> RANGE_ORDER = Comparator
            .comparing((RangeEntry e) -> e.range.first())
            .thenComparing(e -> e.range.last())
            .thenComparingInt(e -> e.index);

    // ---------------------------------------------------------------------------------------------------------------
    // L2Advertisements

    private static Optional<L2Advertisement> l2FromResource(
            ConfigSources.RawObject raw, Set<String> poolNames, List<ConfigProblem> problems) {
        ConfigOrigin origin = new ConfigOrigin(ConfigOrigin.Kind.L2Advertisement, raw.namespace(), raw.name());
        Scope scope = new Scope(origin, "", problems);
        if (raw.name() == null || raw.name().isEmpty()) {
            scope.error("metadata.name is required");
        }
        Map<?, ?> spec;
        if (raw.spec() == null) {
            spec = Map.of(); // every field is optional: an empty spec announces every pool from every node
        } else if (raw.spec() instanceof Map<?, ?> map) {
            spec = map;
        } else {
            scope.error("spec: expected a map, got " + describe(raw.spec()));
            return Optional.empty();
        }
        warnUnknown(scope, "spec", spec, concat(L2_SPEC_FIELDS, L2_REFUSED_FIELDS));

        List<String> pools = strings(scope, "ipAddressPools", spec.get("ipAddressPools"), "pool names");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < pools.size(); i++) {
            String pool = pools.get(i);
            String entryPath = "ipAddressPools[" + i + "]";
            if (!seen.add(pool)) {
                scope.warn(entryPath + ": pool " + Quoted.of(pool) + " is listed twice");
            } else if (!poolNames.contains(pool)) {
                scope.warn(entryPath + ": pool " + Quoted.of(pool) + " does not exist");
            }
        }
        List<LabelSelector> poolSelectors = selectors(scope, "ipAddressPoolSelectors", spec.get("ipAddressPoolSelectors"));
        List<LabelSelector> nodeSelectors = selectors(scope, "nodeSelectors", spec.get("nodeSelectors"));
        List<String> interfaces = strings(scope, "interfaces", spec.get("interfaces"), "interface names");
        for (int i = 0; i < interfaces.size(); i++) {
            if (!INTERFACE_NAME.matcher(interfaces.get(i)).matches()) {
                scope.warn("interfaces[" + i + "]: " + Quoted.of(interfaces.get(i))
                        + " is not a valid network interface name (1-15 characters, no '/', ':' or spaces), so it matches no interface");
            }
        }
        Object serviceSelectors = spec.get("serviceSelectors");
        if (serviceSelectors instanceof List<?> list && !list.isEmpty()) {
            scope.error("serviceSelectors is not supported by lbk8s: remove it (ignoring it would announce every Service of the selected pools)");
        }
        List<PreferredNodeSelector> preferred = preferredNodeSelectors(scope, spec.get("preferredNodeSelectors"));
        if (scope.failed) {
            return Optional.empty();
        }
        return Optional.of(new L2Advertisement(raw.name(), pools, poolSelectors, nodeSelectors, preferred, interfaces, origin));
    }

    private static List<PreferredNodeSelector> preferredNodeSelectors(Scope scope, Object value) {
        String path = "preferredNodeSelectors";
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            scope.error(path + ": expected a list of {weight, preference}, got " + describe(value));
            return List.of();
        }
        List<PreferredNodeSelector> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String entryPath = path + "[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> entry)) {
                scope.error(entryPath + ": expected {weight, preference}, got " + describe(list.get(i)));
                continue;
            }
            warnUnknown(scope, entryPath, entry, PREFERRED_NODE_SELECTOR_FIELDS);
            Integer weight = null;
            if (entry.get("weight") == null) {
                scope.error(entryPath + ".weight is required (1-100)");
            } else {
                weight = integer(scope, entryPath + ".weight", entry.get("weight"));
                if (weight != null && (weight < PreferredNodeSelector.MIN_WEIGHT || weight > PreferredNodeSelector.MAX_WEIGHT)) {
                    scope.error(entryPath + ".weight: " + weight + " is out of range; a weight is 1-100");
                    weight = null;
                }
            }
            LabelSelector preference = null;
            if (entry.get("preference") == null) {
                scope.error(entryPath + ".preference is required (a label selector of preferred nodes)");
            } else {
                preference = selector(scope, entryPath + ".preference", entry.get("preference"));
            }
            if (weight != null && preference != null) {
                result.add(new PreferredNodeSelector(weight, preference));
            }
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Label selectors

    private static List<LabelSelector> selectors(Scope scope, String path, Object value) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            scope.error(path + ": expected a list of label selectors, got " + describe(value));
            return List.of();
        }
        List<LabelSelector> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String entryPath = path + "[" + i + "]";
            LabelSelector selector = selector(scope, entryPath, list.get(i));
            if (selector != null) {
                if (result.contains(selector)) {
                    scope.warn(entryPath + ": the same selector is listed twice");
                }
                result.add(selector);
            }
        }
        return result;
    }

    private static LabelSelector selector(Scope scope, String path, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(path + ": expected a label selector (a map with matchLabels and/or matchExpressions), got "
                    + describe(value));
            return null;
        }
        warnUnknown(scope, path, map, SELECTOR_FIELDS);
        boolean ok = true;
        Map<String, String> matchLabels = new LinkedHashMap<>();
        Object labelsValue = map.get("matchLabels");
        String labelsPath = path + ".matchLabels";
        if (labelsValue != null) {
            if (!(labelsValue instanceof Map<?, ?> labels)) {
                scope.error(labelsPath + ": expected a map of label keys to values, got " + describe(labelsValue));
                ok = false;
            } else {
                for (Object keyObject : new TreeSet<>(stringKeys(labels))) {
                    String key = (String) keyObject;
                    Object labelValue = labels.get(key);
                    String reason = labelKeyProblem(key);
                    if (reason != null) {
                        scope.error(labelsPath + ": " + Quoted.of(key) + " is not a valid label key: " + reason);
                        ok = false;
                    }
                    if (!(labelValue instanceof String text)) {
                        scope.error(labelsPath + "." + key + ": expected a string, got " + describe(labelValue));
                        ok = false;
                    } else if (!isLabelValue(text)) {
                        scope.error(labelsPath + "." + key + ": " + Quoted.of(text) + " is not a valid label value: " + LABEL_VALUE_RULE);
                        ok = false;
                    } else {
                        matchLabels.put(key, text);
                    }
                }
            }
        }
        List<LabelSelector.Requirement> requirements = new ArrayList<>();
        Object expressionsValue = map.get("matchExpressions");
        String expressionsPath = path + ".matchExpressions";
        if (expressionsValue != null) {
            if (!(expressionsValue instanceof List<?> expressions)) {
                scope.error(expressionsPath + ": expected a list of requirements, got " + describe(expressionsValue));
                ok = false;
            } else {
                for (int i = 0; i < expressions.size(); i++) {
                    LabelSelector.Requirement requirement = requirement(scope, expressionsPath + "[" + i + "]", expressions.get(i));
                    if (requirement == null) {
                        ok = false;
                    } else {
                        requirements.add(requirement);
                    }
                }
            }
        }
        return ok ? new LabelSelector(matchLabels, requirements) : null;
    }

    private static LabelSelector.Requirement requirement(Scope scope, String path, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(path + ": expected a map with key, operator and values, got " + describe(value));
            return null;
        }
        warnUnknown(scope, path, map, REQUIREMENT_FIELDS);
        boolean ok = true;
        String key = null;
        Object keyValue = map.get("key");
        if (keyValue == null) {
            scope.error(path + ".key is required");
            ok = false;
        } else if (!(keyValue instanceof String text)) {
            scope.error(path + ".key: expected a string, got " + describe(keyValue));
            ok = false;
        } else {
            String reason = labelKeyProblem(text);
            if (reason != null) {
                scope.error(path + ".key: " + Quoted.of(text) + " is not a valid label key: " + reason);
                ok = false;
            }
            key = text;
        }
        LabelSelector.Operator operator = null;
        Object operatorValue = map.get("operator");
        if (operatorValue == null) {
            scope.error(path + ".operator is required: expected In, NotIn, Exists or DoesNotExist");
            ok = false;
        } else if (!(operatorValue instanceof String text)) {
            scope.error(path + ".operator: expected a string, got " + describe(operatorValue));
            ok = false;
        } else {
            for (LabelSelector.Operator candidate : LabelSelector.Operator.values()) {
                if (candidate.name().equals(text)) {
                    operator = candidate;
                }
            }
            if (operator == null) {
                scope.error(path + ".operator: " + Quoted.of(text) + " is not an operator; expected In, NotIn, Exists or DoesNotExist");
                ok = false;
            }
        }
        int errorsBefore = scope.errors;
        List<String> values = strings(scope, path + ".values", map.get("values"), "label values");
        if (scope.errors != errorsBefore) {
            ok = false;
        }
        for (int i = 0; i < values.size(); i++) {
            if (!isLabelValue(values.get(i))) {
                scope.error(path + ".values[" + i + "]: " + Quoted.of(values.get(i)) + " is not a valid label value: " + LABEL_VALUE_RULE);
                ok = false;
            }
        }
        if (operator != null && scope.errors == errorsBefore) {
            switch (operator) {
                case In, NotIn -> {
                    if (values.isEmpty()) {
                        scope.error(path + ".values: operator " + operator + " needs at least one value");
                        ok = false;
                    }
                }
                case Exists, DoesNotExist -> {
                    if (!values.isEmpty()) {
                        scope.error(path + ".values: operator " + operator + " takes no values, got " + values.size());
                        ok = false;
                    }
                }
            }
        }
        return ok ? new LabelSelector.Requirement(key, operator, new LinkedHashSet<>(values)) : null;
    }

    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern INTERFACE_NAME = Pattern.compile("[^/:\\s]{1,15}");
    private static final String LABEL_NAME_RULE =
            "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
    private static final String LABEL_VALUE_RULE = "it must be empty or " + LABEL_NAME_RULE;

    /** Kubernetes' rule for a label key (a qualified name: optional DNS-subdomain prefix and '/', then a name). */
    static String labelKeyProblem(String key) {
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "the prefix before '/' must be a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253)";
            }
        }
        if (name.isEmpty() || name.length() > 63 || !LABEL_NAME.matcher(name).matches()) {
            return "the name must be " + LABEL_NAME_RULE;
        }
        return null;
    }

    static boolean isLabelValue(String value) {
        return value.isEmpty() || (value.length() <= 63 && LABEL_NAME.matcher(value).matches());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Typed reads of parsed JSON/YAML

    private static boolean bool(Scope scope, Map<?, ?> map, String path, String key, boolean otherwise) {
        Object value = map.get(key);
        if (value == null) {
            return otherwise;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        scope.error(path + ": expected a boolean (true or false), got " + describe(value));
        return otherwise;
    }

    private static Integer integer(Scope scope, String path, Object value) {
        BigInteger integral = switch (value) {
            case Integer i -> BigInteger.valueOf(i);
            case Long l -> BigInteger.valueOf(l);
            case Short s -> BigInteger.valueOf(s);
            case Byte b -> BigInteger.valueOf(b);
            case BigInteger b -> b;
            case BigDecimal d when d.stripTrailingZeros().scale() <= 0 -> d.toBigIntegerExact();
            case Double d when d == Math.rint(d) && !d.isInfinite() -> BigDecimal.valueOf(d).toBigIntegerExact();
            case Float f when f == Math.rint(f) && !f.isInfinite() -> BigDecimal.valueOf(f).toBigIntegerExact();
            default -> null;
        };
        if (integral == null) {
            scope.error(path + ": expected an integer, got " + describe(value));
            return null;
        }
        if (integral.bitLength() > 31) {
            scope.error(path + ": " + integral + " is out of range for a 32-bit integer");
            return null;
        }
        return integral.intValue();
    }

    /** A list of strings; null means absent (an empty list). Type errors are reported and the bad items dropped. */
    private static List<String> strings(Scope scope, String path, Object value, String what) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            scope.error(path + ": expected a list of " + what + ", got " + describe(value));
            return List.of();
        }
        List<String> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String s) {
                result.add(s);
            } else {
                scope.error(path + "[" + i + "]: expected a string, got " + describe(item));
            }
        }
        return result;
    }

    private static void warnUnknown(Scope scope, String path, Map<?, ?> map, List<Field> known) {
        for (String key : unknownKeys(map, known)) {
            scope.warn((path.isEmpty() ? "" : path + ": ") + "unknown field " + Quoted.of(key) + " is ignored");
        }
    }

    private static Set<String> unknownKeys(Map<?, ?> map, List<Field> known) {
        Set<String> unknown = new TreeSet<>();
        for (Object key : map.keySet()) {
            String name = String.valueOf(key);
            if (known.stream().noneMatch(f -> f.name().equals(name))) {
                unknown.add(name);
            }
        }
        return unknown;
    }

    private static Set<String> stringKeys(Map<?, ?> map) {
        Set<String> keys = new TreeSet<>();
        for (Object key : map.keySet()) {
            keys.add(String.valueOf(key));
        }
        return keys;
    }

    /** Describes a parsed JSON value for "expected X, got Y" messages. */
    static String describe(Object value) {
        return switch (value) {
            case null -> "null";
            case String s -> "a string (" + Quoted.of(s) + ")";
            case Boolean b -> "a boolean (" + b + ")";
            case Number n -> "a number (" + n + ")";
            case List<?> l -> l.isEmpty() ? "an empty list" : "a list";
            case Map<?, ?> m -> m.isEmpty() ? "an empty map" : "a map";
            default -> "a " + value.getClass().getSimpleName();
        };
    }

    private static String path(String base, String field) {
        return base.isEmpty() ? field : base + "." + field;
    }

    private static String prefixOf(String cidr) {
        return cidr.strip().substring(cidr.strip().indexOf('/') + 1);
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "unreadable";
        }
        int newline = text.indexOf('\n');
        return (newline < 0 ? text : text.substring(0, newline)).strip();
    }

    /** Every YAML document of the text, as maps/lists/scalars (a top-level list stays one list). */
    private static List<Object> readDocuments(String text) {
        List<Object> documents = new ArrayList<>();
        try (JsonParser parser = YAML.createParser(text)) {
            while (parser.nextToken() != null) {
                documents.add(YAML.readValue(parser, Object.class));
            }
        }
        return documents;
    }

    private static <T> List<T> sorted(List<T> list, Comparator<? super T> order) {
        List<T> copy = new ArrayList<>(list);
        copy.sort(order);
        return copy;
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Working state

    /** Problems of one object (or one ConfigMap pool): origin, message prefix, and whether an error was found. */
    private static final class Scope {
        final ConfigOrigin origin;
        final String prefix;
        final List<ConfigProblem> out;
        boolean failed;
        int errors;

        Scope(ConfigOrigin origin, String prefix, List<ConfigProblem> out) {
            this.origin = origin;
            this.prefix = prefix;
            this.out = out;
        }

        void error(String message) {
            out.add(ConfigProblem.error(origin, prefix + message));
            failed = true;
            errors++;
        }

        void warn(String message) {
            out.add(ConfigProblem.warning(origin, prefix + message));
        }
    }

    /** A pool being built. {@code definedAt} names where it is written, for messages about other objects. */
    private static final class PoolDraft {
        final String name;
        final Scope scope;
        final Map<String, String> labels;
        final String definedAt;
        Precedence precedence;
        final List<RangeEntry> ranges = new ArrayList<>();
        final List<SpecialEntry> special = new ArrayList<>();
        boolean autoAssign = true;
        boolean avoidBuggyIPs;
        Optional<ServiceAllocation> serviceAllocation = Optional.empty();

        PoolDraft(String name, Scope scope, Map<String, String> labels, String definedAt) {
            this.name = name;
            this.scope = scope;
            this.labels = labels;
            this.definedAt = definedAt;
        }

        AddressPool toPool() {
            List<IpRange> list = ranges.stream().map(RangeEntry::range).toList();
            return new AddressPool(name, list, autoAssign, avoidBuggyIPs, serviceAllocation, labels, scope.origin);
        }
    }

    private record RangeEntry(IpRange range, int index, String path, PoolDraft pool) {}

    /** An entry with special-purpose addresses, and the message saying which. */
    private record SpecialEntry(RangeEntry entry, String why) {}

    /**
     * Where a pool stands in definition order: the first of two conflicting pools wins. An object without a creation
     * time is one not created yet (the installer checks a pool before applying it), so it comes after the others.
     */
    private record Precedence(boolean newer, String createdAt, int kind, String namespace, String name, int index) {
        Precedence {
            createdAt = createdAt.isEmpty() ? "~" : createdAt; // '~' sorts after every RFC 3339 time
        }

        static final Comparator<Precedence> ORDER = Comparator.comparing(Precedence::newer)
                .thenComparing(Precedence::createdAt)
                .thenComparingInt(Precedence::kind)
                .thenComparing(Precedence::namespace)
                .thenComparing(Precedence::name)
                .thenComparingInt(Precedence::index);
    }
}

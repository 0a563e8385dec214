package io.lbk8s.migrate;

import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * MetalLB's legacy (before 0.13) ConfigMap, converted to what MetalLB 0.13 made of it: each {@code layer2} pool
 * becomes an IPAddressPool and an L2Advertisement of the same name that selects it. BGP cannot be announced by
 * lbk8s: BGP pools, peers, communities and BFD profiles are left out, each with a sentence, never silently. Pure.
 */
public final class LegacyConfig {
    private LegacyConfig() {}

    /** What was converted, and a sentence for each part that was not. */
    public record Conversion(List<Manifest> manifests, List<String> leftOut) {
        public Conversion {
            manifests = List.copyOf(manifests);
            leftOut = List.copyOf(leftOut);
        }
    }

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Set<String> BGP_ONLY = Set.of("peers", "bgp-communities", "bfd-profiles");
    private static final Set<String> POOL_FIELDS =
            Set.of("name", "protocol", "addresses", "cidr", "auto-assign", "avoid-buggy-ips", "bgp-advertisements");

    /** @param configText the ConfigMap's {@code config} key; {@code from} names the ConfigMap in messages */
    public static Conversion convert(String from, String configText) {
        List<Manifest> manifests = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        if (configText == null || configText.isBlank()) {
            return new Conversion(List.of(), List.of(from + ": its config is empty, nothing converted"));
        }
        Object root;
        try {
            root = YAML.readValue(configText, Object.class);
        } catch (JacksonException e) {
            String where = e.getLocation() == null || e.getLocation().getLineNr() < 1
                    ? ""
                    : " (line " + e.getLocation().getLineNr() + ")";
            return new Conversion(
                    List.of(),
                    List.of(from + ": its config is not valid YAML" + where + ", nothing converted: "
                            + e.getOriginalMessage().lines().findFirst().orElse("")));
        }
        if (!(root instanceof Map<?, ?> top)) {
            return new Conversion(List.of(), List.of(from + ": its config is not a YAML mapping, nothing converted"));
        }
        top.forEach((key, value) -> {
            if ("address-pools".equals(key)) {
                if (value instanceof List<?> pools) {
                    pools.forEach(p -> pool(from, p, manifests, leftOut));
                } else if (value != null) {
                    leftOut.add(from + ": address-pools is not a list, nothing converted from it");
                }
            } else if (BGP_ONLY.contains(String.valueOf(key))) {
                if (!isEmpty(value)) {
                    leftOut.add(
                            from + ": " + key
                                    + " left out: lbk8s migrate does not convert legacy BGP settings; write them as BGPPeer, Community and BFDProfile objects");
                }
            } else {
                leftOut.add(from + ": " + Quoted.of(String.valueOf(key))
                        + " left out: not a field of MetalLB's legacy configuration");
            }
        });
        return new Conversion(manifests, leftOut);
    }

    private static void pool(String from, Object entry, List<Manifest> manifests, List<String> leftOut) {
        if (!(entry instanceof Map<?, ?> pool) || !(pool.get("name") instanceof String name) || name.isBlank()) {
            leftOut.add(from + ": an address pool without a name left out");
            return;
        }
        String which = from + ": pool " + Quoted.of(name);
        Object protocol = pool.get("protocol");
        if (!"layer2".equals(protocol)) {
            leftOut.add(
                    which
                            + (protocol == null
                                    ? " has no protocol"
                                    : " uses protocol " + Quoted.of(String.valueOf(protocol)))
                            + ", not layer2: left out, lbk8s migrate converts layer2 pools only (write an IPAddressPool and a BGPAdvertisement for it)");
            return;
        }
        Object addresses =
                pool.containsKey("addresses") ? pool.get("addresses") : pool.get("cidr"); // cidr: MetalLB before 0.5
        if (!(addresses instanceof List<?> list)
                || list.isEmpty()
                || !list.stream().allMatch(a -> a instanceof String)) {
            leftOut.add(which + " has no list of addresses: left out");
            return;
        }
        pool.keySet().stream()
                .filter(k -> !POOL_FIELDS.contains(String.valueOf(k)))
                .forEach(k -> leftOut.add(which + ": field " + Quoted.of(String.valueOf(k))
                        + " left out: not a field of MetalLB's legacy pools"));
        if (!isEmpty(pool.get("bgp-advertisements"))) {
            leftOut.add(which + ": bgp-advertisements left out: a layer2 pool is not announced with BGP");
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("addresses", list);
        flag(pool, "auto-assign", "autoAssign", spec, which, leftOut);
        flag(pool, "avoid-buggy-ips", "avoidBuggyIPs", spec, which, leftOut);
        manifests.add(new Manifest(ConfigOrigin.Kind.IPAddressPool, name, Map.of(), spec, from));
        manifests.add(new Manifest(
                ConfigOrigin.Kind.L2Advertisement, name, Map.of(), Map.of("ipAddressPools", List.of(name)), from));
    }

    private static void flag(
            Map<?, ?> pool,
            String legacyName,
            String name,
            Map<String, Object> spec,
            String which,
            List<String> leftOut) {
        Object value = pool.get(legacyName);
        if (value instanceof Boolean b) {
            spec.put(name, b);
        } else if (value != null) {
            leftOut.add(which + ": " + legacyName + " is not true or false: left out, the default applies");
        }
    }

    private static boolean isEmpty(Object value) {
        return value == null
                || (value instanceof List<?> l && l.isEmpty())
                || (value instanceof Map<?, ?> m && m.isEmpty());
    }
}

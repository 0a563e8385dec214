package io.lbk8s.migrate;

import io.lbk8s.config.ConfigOrigin;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A MetalLB object (IPAddressPool, L2Advertisement or a BGP kind) that {@code lbk8s migrate} creates in lbk8s's
 * namespace, and where it comes from ({@code IPAddressPool metallb-system/default}, {@code ConfigMap
 * metallb-system/config}).
 */
public record Manifest(
        ConfigOrigin.Kind kind, String name, Map<String, String> labels, Map<String, Object> spec, String from) {
    public Manifest {
        labels = Map.copyOf(labels);
        spec = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(spec));
    }

    /**
     * Whether {@code other} means the same: equal specs once the CRD's defaults ({@code autoAssign: true},
     * {@code avoidBuggyIPs: false}) and empty lists are left out, as the API server may or may not have written them.
     */
    public boolean sameSpec(Object other) {
        return normalized(spec).equals(normalized(other));
    }

    private static Object normalized(Object value) {
        return switch (value) {
            case Map<?, ?> map -> {
                Map<Object, Object> out = new LinkedHashMap<>();
                map.forEach((k, v) -> {
                    boolean defaulted = ("autoAssign".equals(k) && Boolean.TRUE.equals(v))
                            || ("avoidBuggyIPs".equals(k) && Boolean.FALSE.equals(v));
                    boolean empty = v == null
                            || (v instanceof List<?> l && l.isEmpty())
                            || (v instanceof Map<?, ?> m && m.isEmpty());
                    if (!defaulted && !empty) {
                        out.put(k, normalized(v));
                    }
                });
                yield out;
            }
            case List<?> list -> list.stream().map(Manifest::normalized).toList();
            case Number n -> new BigDecimal(n.toString()).stripTrailingZeros();
            case null -> Map.of();
            default -> value;
        };
    }
}

package io.lbk8s.config;

import java.util.List;
import java.util.Optional;

/**
 * A complete, validated configuration. {@code pools} are in the documented auto-assign order: by name.
 */
public record Config(List<AddressPool> pools, List<L2Advertisement> l2Advertisements) {

    public static final Config EMPTY = new Config(List.of(), List.of());

    public Config {
        pools = List.copyOf(pools);
        l2Advertisements = List.copyOf(l2Advertisements);
    }

    public Optional<AddressPool> pool(String name) {
        return pools.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}

package io.lbk8s.config;

import java.util.List;
import java.util.Optional;

/**
 * A complete, validated configuration. {@code pools} are in the documented auto-assign order: by name.
 */
public record Config(
        List<AddressPool> pools,
        List<L2Advertisement> l2Advertisements,
        List<BgpPeer> bgpPeers,
        List<BgpAdvertisement> bgpAdvertisements,
        List<BfdProfile> bfdProfiles) {

    public static final Config EMPTY = new Config(List.of(), List.of());

    public Config {
        pools = List.copyOf(pools);
        l2Advertisements = List.copyOf(l2Advertisements);
        bgpPeers = List.copyOf(bgpPeers);
        bgpAdvertisements = List.copyOf(bgpAdvertisements);
        bfdProfiles = List.copyOf(bfdProfiles);
    }

    /** A layer-2 only configuration. */
    public Config(List<AddressPool> pools, List<L2Advertisement> l2Advertisements) {
        this(pools, l2Advertisements, List.of(), List.of(), List.of());
    }

    public Optional<AddressPool> pool(String name) {
        return pools.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}

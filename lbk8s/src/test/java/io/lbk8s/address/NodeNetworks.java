package io.lbk8s.address;

import java.util.Arrays;
import java.util.List;

/** Test shorthand for {@link NodeNetwork}s written as text. */
public final class NodeNetworks {
    private NodeNetworks() {}

    public static List<IpPrefix> prefixes(String... texts) {
        return Arrays.stream(texts).map(t -> IpPrefix.parse(t).orElseThrow()).toList();
    }

    public static List<IpAddress> gateways(String... texts) {
        return Arrays.stream(texts).map(t -> IpAddress.parse(t).orElseThrow()).toList();
    }
}

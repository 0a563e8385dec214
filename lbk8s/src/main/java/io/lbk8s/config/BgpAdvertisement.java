package io.lbk8s.config;

import io.lbk8s.bgp.Community;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A validated MetalLB BGPAdvertisement. Empty {@code ipAddressPools} and {@code ipAddressPoolSelectors} mean every
 * pool; empty {@code nodeSelectors} every node; empty {@code peers} every BGPPeer. Community aliases (Community
 * objects) are already resolved into {@code communities}.
 *
 * @param aggregationLength   the prefix length IPv4 addresses are advertised with (32 unless set)
 * @param aggregationLengthV6 likewise for IPv6 (128 unless set)
 */
public record BgpAdvertisement(
        String name,
        List<String> ipAddressPools,
        List<LabelSelector> ipAddressPoolSelectors,
        List<LabelSelector> nodeSelectors,
        List<String> peers,
        int aggregationLength,
        int aggregationLengthV6,
        OptionalLong localPref,
        List<Community> communities,
        ConfigOrigin origin) {

    public BgpAdvertisement {
        ipAddressPools = List.copyOf(ipAddressPools);
        ipAddressPoolSelectors = List.copyOf(ipAddressPoolSelectors);
        nodeSelectors = List.copyOf(nodeSelectors);
        peers = List.copyOf(peers);
        communities = List.copyOf(communities);
    }

    public boolean selects(AddressPool pool) {
        return Selection.selectsPool(ipAddressPools, ipAddressPoolSelectors, pool);
    }

    public boolean allowsNode(Map<String, String> nodeLabels) {
        return Selection.allowsNode(nodeSelectors, nodeLabels);
    }

    public boolean toPeer(String peer) {
        return peers.isEmpty() || peers.contains(peer);
    }
}

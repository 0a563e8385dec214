package io.lbk8s.config;

import io.lbk8s.address.IpAddress;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpec.DynamicAsn;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A validated MetalLB BGPPeer ({@code metallb.io/v1beta2}). Empty {@code nodeSelectors} mean every node peers.
 *
 * @param password       the password written in the object itself
 * @param passwordSecret the name of a Secret of type {@code kubernetes.io/basic-auth} in lbk8s's namespace whose
 *                       {@code password} key is the password; the speaker reads it
 * @param bfdProfile     the name of a BFDProfile; the parser has checked that it exists
 */
public record BgpPeer(
        String name,
        long myAsn,
        OptionalLong peerAsn,
        Optional<DynamicAsn> dynamicAsn,
        IpAddress peerAddress,
        int peerPort,
        Optional<IpAddress> sourceAddress,
        Optional<IpAddress> routerId,
        Duration holdTime,
        Optional<Duration> keepaliveTime,
        Duration connectTime,
        List<LabelSelector> nodeSelectors,
        Optional<String> password,
        Optional<String> passwordSecret,
        Optional<String> bfdProfile,
        boolean ebgpMultiHop,
        boolean enableGracefulRestart,
        boolean dualStackAddressFamily,
        ConfigOrigin origin) {

    public BgpPeer {
        nodeSelectors = List.copyOf(nodeSelectors);
    }

    /** Whether the peer is in the cluster's AS (iBGP): it gets LOCAL_PREF, and no TTL of 1. */
    public boolean internal() {
        return PeerSpec.internal(myAsn, peerAsn, dynamicAsn);
    }

    /** Whether a node with these labels holds a session with this peer. */
    public boolean allowsNode(Map<String, String> nodeLabels) {
        return Selection.allowsNode(nodeSelectors, nodeLabels);
    }
}

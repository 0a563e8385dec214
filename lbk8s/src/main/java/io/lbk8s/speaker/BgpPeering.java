package io.lbk8s.speaker;

import io.lbk8s.bfd.BfdSettings;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.config.BfdProfile;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which BGPPeers one node holds sessions with, and with what: a peer whose nodeSelectors match the node's labels,
 * unless the node carries the exclusion label (as in layer 2), with its password read from its Secret and its
 * BFDProfile resolved. The failure detector among speakers has no say ({@link BgpChoice}): a node it holds back
 * (starting, resuming after a pause, rejoining) keeps its sessions and its routes.
 *
 * @param peers    the sessions to hold, by peer name
 * @param problems sentences about peers this node should peer with but cannot, or not as configured
 */
public record BgpPeering(List<PeerSpec> peers, List<String> problems) {

    public static final BgpPeering NONE = new BgpPeering(List.of(), List.of());

    public BgpPeering {
        peers = List.copyOf(peers);
        problems = List.copyOf(problems);
    }

    /**
     * @param passwords the {@code password} of each Secret a BGPPeer names, by Secret name; a Secret that is missing
     *                  or has no such key is absent
     */
    public static BgpPeering of(
            Config config, NodeState node, LeaderChoice.Options options, Map<String, String> passwords) {
        return of(config, node, options, passwords, Map.of());
    }

    /**
     * @param unreadable why the API refused to show a Secret a BGPPeer names (e.g. Forbidden), by Secret name
     */
    public static BgpPeering of(
            Config config,
            NodeState node,
            LeaderChoice.Options options,
            Map<String, String> passwords,
            Map<String, String> unreadable) {
        if (config.bgpPeers().isEmpty() || (node.excluded() && !options.ignoreExcludeLabel())) {
            return NONE;
        }
        List<PeerSpec> peers = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (BgpPeer peer : config.bgpPeers().stream()
                .sorted(Comparator.comparing(BgpPeer::name))
                .toList()) {
            if (!peer.allowsNode(node.labels())) {
                continue;
            }
            Optional<String> password = peer.password();
            if (peer.passwordSecret().isPresent()) {
                String secret = peer.passwordSecret().get();
                password = Optional.ofNullable(passwords.get(secret));
                if (password.isEmpty()) {
                    // a session without the password would only be refused by the router, and say less about why
                    String why = Optional.ofNullable(unreadable.get(secret))
                            .map(reason -> "the speaker cannot read Secret " + Quoted.of(secret) + " (" + reason + ")")
                            .orElse("Secret " + Quoted.of(secret) + " is missing or has no key \"password\"");
                    problems.add("BGPPeer " + Quoted.of(peer.name()) + ": " + why + ", so node " + node.name()
                            + " does not connect to " + peer.peerAddress());
                    continue;
                }
            }
            Optional<BfdSettings> bfd = Optional.empty();
            if (peer.bfdProfile().isPresent()) {
                String profile = peer.bfdProfile().get();
                bfd = config.bfdProfiles().stream()
                        .filter(p -> p.name().equals(profile))
                        .map(BfdProfile::settings)
                        .findFirst();
                if (bfd.isEmpty()) {
                    problems.add("BGPPeer " + Quoted.of(peer.name()) + " names BFDProfile " + Quoted.of(profile)
                            + ", which does not exist; the session runs without BFD");
                }
            }
            peers.add(spec(peer, password, bfd));
        }
        return new BgpPeering(peers, problems);
    }

    private static PeerSpec spec(BgpPeer peer, Optional<String> password, Optional<BfdSettings> bfd) {
        return new PeerSpec(
                peer.name(),
                peer.peerAddress(),
                peer.peerPort(),
                peer.myAsn(),
                peer.peerAsn(),
                peer.dynamicAsn(),
                peer.sourceAddress(),
                peer.routerId(),
                peer.holdTime(),
                peer.keepaliveTime(),
                peer.connectTime(),
                password,
                peer.ebgpMultiHop(),
                peer.enableGracefulRestart(),
                peer.dualStackAddressFamily(),
                bfd);
    }

    /** Whether a node with these labels peers with {@code peer}: what every node can tell of every other. */
    static boolean peers(BgpPeer peer, NodeState node, LeaderChoice.Options options) {
        return peer.allowsNode(node.labels()) && (!node.excluded() || options.ignoreExcludeLabel());
    }
}

package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.config.L2Advertisement;
import io.lbk8s.text.Quoted;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which node announces each address of a Service. Every speaker computes this from the same API objects and gets
 * the same answer, so no coordination is needed. The rule is MetalLB's: among the eligible nodes, order by
 * sha256(node + "#" + ip) and take the first; since the key is the Service's first address, Services sharing an
 * address announce from one node, and both families of a dual-stack Service go to the same node. Nodes matching
 * an L2Advertisement's preferredNodeSelectors come before the others, by summed weight. As in MetalLB, no node
 * announces a Service none of whose endpoints can take traffic ({@link ServiceEndpoints}).
 */
public final class LeaderChoice {
    private LeaderChoice() {}

    public record Options(boolean ignoreExcludeLabel) {
        public static final Options DEFAULT = new Options(false);
    }

    public static List<Announcement> decide(
            Config config, ServiceState service, Collection<NodeState> nodes, Options options) {
        if (service.ips().isEmpty()) {
            return List.of();
        }
        IpAddress hashKey = service.ips().getFirst();
        List<Announcement> result = new ArrayList<>(service.ips().size());
        for (IpAddress ip : service.ips()) {
            result.add(decideOne(config, service, ip, hashKey, nodes, options));
        }
        return List.copyOf(result);
    }

    private static Announcement decideOne(
            Config config,
            ServiceState service,
            IpAddress ip,
            IpAddress hashKey,
            Collection<NodeState> nodes,
            Options options) {
        Optional<AddressPool> pool =
                config.pools().stream().filter(p -> p.contains(ip)).findFirst(); // pools never overlap
        if (pool.isEmpty()) {
            return new Announcement.Unannounced(ip, ip + " is in no configured address pool, so no node announces it");
        }
        List<L2Advertisement> advertisements = config.l2Advertisements().stream()
                .filter(a -> a.selects(pool.get()))
                .toList();
        if (advertisements.isEmpty()) {
            if (config.bgpAdvertisements().stream().anyMatch(a -> a.selects(pool.get()))) {
                return new Announcement.BgpOnly(ip);
            }
            return new Announcement.Unannounced(
                    ip,
                    "no L2Advertisement selects pool " + Quoted.of(pool.get().name()) + ", so no node announces " + ip
                            + "; create one (an empty spec selects every pool)"
                            + (config.bgpPeers().isEmpty() ? "" : ", or a BGPAdvertisement to announce it over BGP"));
        }
        Optional<String> noEndpoint = service.endpoints().whyNoNode(ip, service.localTrafficPolicy());
        if (noEndpoint.isPresent()) {
            return new Announcement.Unannounced(ip, noEndpoint.get());
        }
        Map<String, List<String>> excludedBy = new LinkedHashMap<>();
        List<NodeState> eligible = new ArrayList<>();
        for (NodeState node :
                nodes.stream().sorted(Comparator.comparing(NodeState::name)).toList()) {
            String why = whyNotEligible(node, service, advertisements, options);
            if (why == null) {
                eligible.add(node);
            } else {
                excludedBy.computeIfAbsent(why, k -> new ArrayList<>()).add(node.name());
            }
        }
        if (eligible.isEmpty()) {
            return new Announcement.Unannounced(ip, noEligibleNode(ip, "announce " + ip, excludedBy, nodes.size()));
        }
        NodeState leader = eligible.stream()
                .min(Comparator.comparingInt((NodeState n) -> -preferenceWeight(n, advertisements))
                        .thenComparing(hashOrder(hashKey)))
                .orElseThrow();
        List<L2Advertisement> applying = advertisements.stream()
                .filter(a -> a.allowsNode(leader.labels()))
                .toList();
        return new Announcement.Led(ip, leader.name(), pool.get(), applying);
    }

    /**
     * The speaker that reports an address nobody announces, so that the Service gets one Warning event rather than
     * one per node: the first node with a ready speaker that the failure detector lets announce, in the address's
     * hash order.
     */
    public static Optional<String> reporterOf(IpAddress hashKey, Collection<NodeState> nodes) {
        return nodes.stream()
                .filter(n -> n.speakerReady() && n.liveness().eligible())
                .min(hashOrder(hashKey))
                .map(NodeState::name);
    }

    private static String whyNotEligible(
            NodeState node, ServiceState service, List<L2Advertisement> advertisements, Options options) {
        Optional<String> unfit = whyUnfit(node, options);
        if (unfit.isPresent()) {
            return unfit.get();
        }
        if (advertisements.stream().noneMatch(a -> a.allowsNode(node.labels()))) {
            return "is not selected by the nodeSelectors of "
                    + names(advertisements.stream().map(L2Advertisement::name).toList());
        }
        if (!service.endpoints().allows(node.name(), service.localTrafficPolicy())) {
            return "has no ready endpoint of the Service (externalTrafficPolicy: Local)";
        }
        return null;
    }

    /**
     * Why {@code node} may announce nothing at all, whatever the address, in layer 2 and BGP alike: its speaker, the
     * failure detector's verdict, its conditions, the exclusion label.
     */
    static Optional<String> whyUnfit(NodeState node, Options options) {
        return Optional.ofNullable(unfitReason(node, options));
    }

    private static String unfitReason(NodeState node, Options options) {
        if (!node.speakerReady()) {
            return "has no ready speaker";
        }
        switch (node.liveness()) {
            case DEAD -> {
                return "is not heard by the failure detector (its speaker missed its heartbeats, or stopped)";
            }
            case HELD -> {
                return "is held back by the failure detector (starting, resuming, or rejoining after a failure)";
            }
            case ALIVE, NOT_HEARD -> {}
        }
        if (!node.ready()) {
            return "is not Ready";
        }
        if (node.networkUnavailable()) {
            return "is NetworkUnavailable";
        }
        if (node.excluded() && !options.ignoreExcludeLabel()) {
            return "carries the label " + NodeState.EXCLUDE_LABEL;
        }
        return null;
    }

    /** The sentence for an address no node may announce, grouping the nodes by why: {@code excludedBy} why -> nodes. */
    static String noEligibleNode(IpAddress ip, String action, Map<String, List<String>> excludedBy, int nodeCount) {
        if (nodeCount == 0) {
            return "no node runs a ready speaker, so no node announces " + ip;
        }
        if (excludedBy.size() == 1) {
            String why = excludedBy.keySet().iterator().next();
            return "no node can " + action + ": every node (" + String.join(", ", excludedBy.get(why)) + ") " + why;
        }
        List<String> parts = new ArrayList<>();
        excludedBy.forEach((why, names) -> names.forEach(name -> parts.add(name + " " + why)));
        return "no node can " + action + ": " + String.join("; ", parts);
    }

    private static int preferenceWeight(NodeState node, List<L2Advertisement> advertisements) {
        int total = 0;
        for (L2Advertisement advertisement : advertisements) {
            if (advertisement.allowsNode(node.labels())) {
                total += advertisement.preferenceWeight(node.labels());
            }
        }
        return total;
    }

    static String names(List<String> names) {
        return names.stream().map(Quoted::of).reduce((a, b) -> a + ", " + b).orElse("");
    }

    /** The nodes in the order of {@code hashKey}'s hash, the order that picks a leader among equals. */
    static Comparator<NodeState> hashOrder(IpAddress hashKey) {
        return (a, b) -> Arrays.compareUnsigned(hash(a.name(), hashKey), hash(b.name(), hashKey));
    }

    static byte[] hash(String node, IpAddress hashKey) {
        try {
            return MessageDigest.getInstance("SHA-256").digest((node + "#" + hashKey).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }
}

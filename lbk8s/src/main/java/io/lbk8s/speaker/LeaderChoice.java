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
        // loops, not streams, here and below: a plan runs this for every address, and with the speaker's JIT (C1) a
        // stream costs more than what it computes
        Optional<AddressPool> pool = poolOf(config, ip);
        if (pool.isEmpty()) {
            return new Announcement.Unannounced(ip, ip + " is in no configured address pool, so no node announces it");
        }
        List<L2Advertisement> advertisements = new ArrayList<>();
        for (L2Advertisement advertisement : config.l2Advertisements()) {
            if (advertisement.selects(pool.get())) {
                advertisements.add(advertisement);
            }
        }
        if (advertisements.isEmpty()) {
            if (selectedByBgp(config, pool.get())) {
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
        for (NodeState node : byName(nodes)) {
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
        NodeState leader = leader(eligible, advertisements, hashKey);
        List<L2Advertisement> applying = new ArrayList<>();
        for (L2Advertisement advertisement : advertisements) {
            if (advertisement.allowsNode(leader.labels())) {
                applying.add(advertisement);
            }
        }
        return new Announcement.Led(ip, leader.name(), pool.get(), applying);
    }

    /**
     * The speaker that reports an address nobody announces, so that the Service gets one Warning event rather than
     * one per node: the first node with a ready speaker that the failure detector lets announce, in the address's
     * hash order.
     */
    public static Optional<String> reporterOf(IpAddress hashKey, Collection<NodeState> nodes) {
        List<String> candidates = nodes.stream()
                .filter(n -> n.speakerReady() && n.liveness().eligible())
                .map(NodeState::name)
                .toList();
        return candidates.isEmpty()
                ? Optional.empty()
                : Optional.of(inHashOrder(candidates, hashKey).getFirst());
    }

    /** The node with the highest preference weight, the first in {@code hashKey}'s hash order among equals. */
    private static NodeState leader(List<NodeState> eligible, List<L2Advertisement> advertisements, IpAddress hashKey) {
        String key = hashKey.toString();
        NodeState leader = null;
        int leaderWeight = 0;
        byte[] leaderHash = null;
        for (NodeState node : eligible) {
            int weight = preferenceWeight(node, advertisements);
            if (leader != null && weight < leaderWeight) {
                continue;
            }
            byte[] hash = hash(node.name(), key);
            if (leader == null || weight > leaderWeight || Arrays.compareUnsigned(hash, leaderHash) < 0) {
                leader = node;
                leaderWeight = weight;
                leaderHash = hash;
            }
        }
        return leader;
    }

    /** The pool that holds {@code ip} (pools never overlap). */
    static Optional<AddressPool> poolOf(Config config, IpAddress ip) {
        for (AddressPool pool : config.pools()) {
            if (pool.contains(ip)) {
                return Optional.of(pool);
            }
        }
        return Optional.empty();
    }

    private static boolean selectedByBgp(Config config, AddressPool pool) {
        for (var advertisement : config.bgpAdvertisements()) {
            if (advertisement.selects(pool)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyAllows(List<L2Advertisement> advertisements, NodeState node) {
        for (L2Advertisement advertisement : advertisements) {
            if (advertisement.allowsNode(node.labels())) {
                return true;
            }
        }
        return false;
    }

    /** The nodes sorted by name, the order in which a sentence lists the nodes left out. */
    static List<NodeState> byName(Collection<NodeState> nodes) {
        List<NodeState> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(NodeState::name));
        return sorted;
    }

    private static String whyNotEligible(
            NodeState node, ServiceState service, List<L2Advertisement> advertisements, Options options) {
        Optional<String> unfit = whyUnfit(node, options);
        if (unfit.isPresent()) {
            return unfit.get();
        }
        if (!anyAllows(advertisements, node)) {
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

    /**
     * The nodes in the order of {@code hashKey}'s hash, the order that picks a leader among equals (a stable sort);
     * each node's hash computed once.
     */
    static List<String> inHashOrder(List<String> nodes, IpAddress hashKey) {
        String key = hashKey.toString();
        List<Map.Entry<byte[], String>> hashed = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            hashed.add(Map.entry(hash(node, key), node));
        }
        hashed.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
        List<String> sorted = new ArrayList<>(hashed.size());
        for (Map.Entry<byte[], String> entry : hashed) {
            sorted.add(entry.getValue());
        }
        return sorted;
    }

    private static byte[] hash(String node, String hashKey) {
        return SHA256.get().digest((node + "#" + hashKey).getBytes(StandardCharsets.UTF_8));
    }

    /** Looking a digest up by name costs more than the digest of a short text: one per thread (digest() resets it). */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    });
}

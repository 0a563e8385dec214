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
import java.util.IdentityHashMap;
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

    /** Why a node may not take a Service's address, layer 2 or BGP, when the Service's endpoints rule it out. */
    static final String NO_LOCAL_ENDPOINT = "has no ready endpoint of the Service (externalTrafficPolicy: Local)";

    public static List<Announcement> decide(
            Config config, ServiceState service, Collection<NodeState> nodes, Options options) {
        return new Decider(config, nodes, options, new HashOrders()).decide(service);
    }

    /**
     * The decisions of one plan, as {@link #decide} makes them: what they read of the configuration and the nodes is
     * worked out once per plan (the nodes in name order, why a node may announce nothing at all) or once per pool (the
     * L2Advertisements that select it, which nodes they let announce and with what preference), not once per address,
     * and the nodes' hash orders come from {@code hashOrders}. What is left for each address is its Service's
     * endpoints and the leader's pick.
     */
    static final class Decider {
        private final Config config;
        private final List<NodeState> byName;
        private final List<String> names;
        private final String[] unfit; // by position in byName; null: fit
        private final HashOrders hashOrders;
        // by identity: the pools are the configuration's own, and a pool's equals would compare its ranges
        private final Map<AddressPool, Pool> pools = new IdentityHashMap<>();

        /** What the L2Advertisements selecting a pool say of each node, by position in byName. */
        private record Pool(
                AddressPool pool,
                List<L2Advertisement> advertisements,
                String[] notSelected,
                int[] weights,
                List<List<L2Advertisement>> applying) {}

        Decider(Config config, Collection<NodeState> nodes, Options options, HashOrders hashOrders) {
            this.config = config;
            this.byName = byName(nodes);
            this.hashOrders = hashOrders;
            List<String> sortedNames = new ArrayList<>(byName.size());
            unfit = new String[byName.size()];
            for (int i = 0; i < byName.size(); i++) {
                sortedNames.add(byName.get(i).name());
                unfit[i] = unfitReason(byName.get(i), options);
            }
            this.names = List.copyOf(sortedNames);
        }

        List<Announcement> decide(ServiceState service) {
            if (service.ips().isEmpty()) {
                return List.of();
            }
            IpAddress hashKey = service.ips().getFirst();
            List<Announcement> result = new ArrayList<>(service.ips().size());
            for (IpAddress ip : service.ips()) {
                result.add(decideOne(service, ip, hashKey));
            }
            return List.copyOf(result);
        }

        /** {@link LeaderChoice#reporterOf} of these nodes: the first eligible one in the hash order of all of them. */
        Optional<String> reporterOf(IpAddress hashKey) {
            for (int i : hashOrders.of(hashKey, names)) {
                NodeState node = byName.get(i);
                if (node.speakerReady() && node.liveness().eligible()) {
                    return Optional.of(node.name());
                }
            }
            return Optional.empty();
        }

        private Announcement decideOne(ServiceState service, IpAddress ip, IpAddress hashKey) {
            // loops, not streams, here and below: a plan runs this for every address, and with the speaker's JIT (C1)
            // a stream costs more than what it computes
            Optional<AddressPool> found = poolOf(config, ip);
            if (found.isEmpty()) {
                return new Announcement.Unannounced(
                        ip, ip + " is in no configured address pool, so no node announces it");
            }
            Pool pool = pools.computeIfAbsent(found.get(), this::pool);
            if (pool.advertisements().isEmpty()) {
                if (selectedByBgp(config, pool.pool())) {
                    return new Announcement.BgpOnly(ip);
                }
                return new Announcement.Unannounced(
                        ip,
                        "no L2Advertisement selects pool "
                                + Quoted.of(pool.pool().name()) + ", so no node announces "
                                + ip + "; create one (an empty spec selects every pool)"
                                + (config.bgpPeers().isEmpty()
                                        ? ""
                                        : ", or a BGPAdvertisement to announce it over BGP"));
            }
            Optional<String> noEndpoint = service.endpoints().whyNoNode(ip, service.localTrafficPolicy());
            if (noEndpoint.isPresent()) {
                return new Announcement.Unannounced(ip, noEndpoint.get());
            }
            boolean[] eligible = new boolean[byName.size()];
            boolean any = false;
            for (int i = 0; i < eligible.length; i++) {
                eligible[i] = unfit[i] == null
                        && pool.notSelected()[i] == null
                        && service.endpoints().allows(names.get(i), service.localTrafficPolicy());
                any |= eligible[i];
            }
            if (!any) {
                return new Announcement.Unannounced(
                        ip, noEligibleNode(ip, "announce " + ip, excludedBy(service, pool), byName.size()));
            }
            // the highest preference weight, the first in the hash order among equals
            int leader = -1;
            for (int i : hashOrders.of(hashKey, names)) {
                if (eligible[i] && (leader < 0 || pool.weights()[i] > pool.weights()[leader])) {
                    leader = i;
                }
            }
            return new Announcement.Led(
                    ip, names.get(leader), pool.pool(), pool.applying().get(leader));
        }

        private Pool pool(AddressPool pool) {
            List<L2Advertisement> advertisements = new ArrayList<>();
            for (L2Advertisement advertisement : config.l2Advertisements()) {
                if (advertisement.selects(pool)) {
                    advertisements.add(advertisement);
                }
            }
            String[] notSelected = new String[byName.size()];
            int[] weights = new int[byName.size()];
            List<List<L2Advertisement>> applying = new ArrayList<>(byName.size());
            for (int i = 0; i < byName.size(); i++) {
                NodeState node = byName.get(i);
                List<L2Advertisement> allowing = new ArrayList<>();
                for (L2Advertisement advertisement : advertisements) {
                    if (advertisement.allowsNode(node.labels())) {
                        allowing.add(advertisement);
                        weights[i] += advertisement.preferenceWeight(node.labels());
                    }
                }
                if (allowing.isEmpty()) {
                    notSelected[i] = "is not selected by the nodeSelectors of "
                            + names(advertisements.stream()
                                    .map(L2Advertisement::name)
                                    .toList());
                }
                applying.add(allowing);
            }
            return new Pool(pool, advertisements, notSelected, weights, applying);
        }

        /** Why each node may not announce the Service's address: why -> nodes, in name order. */
        private Map<String, List<String>> excludedBy(ServiceState service, Pool pool) {
            Map<String, List<String>> excludedBy = new LinkedHashMap<>();
            for (int i = 0; i < byName.size(); i++) {
                String why = unfit[i] != null
                        ? unfit[i]
                        : pool.notSelected()[i] != null ? pool.notSelected()[i] : NO_LOCAL_ENDPOINT;
                excludedBy.computeIfAbsent(why, k -> new ArrayList<>()).add(names.get(i));
            }
            return excludedBy;
        }
    }

    /**
     * The speaker that reports an address nobody announces, so that the Service gets one Warning event rather than
     * one per node: the first node with a ready speaker that the failure detector lets announce, in the address's
     * hash order.
     */
    public static Optional<String> reporterOf(IpAddress hashKey, Collection<NodeState> nodes) {
        // the plans' own implementation; it reads neither the configuration nor the options
        return new Decider(Config.EMPTY, nodes, Options.DEFAULT, new HashOrders()).reporterOf(hashKey);
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

    /** The nodes sorted by name, the order in which a sentence lists the nodes left out. */
    static List<NodeState> byName(Collection<NodeState> nodes) {
        List<NodeState> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(NodeState::name));
        return sorted;
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

    static String names(List<String> names) {
        return names.stream().map(Quoted::of).reduce((a, b) -> a + ", " + b).orElse("");
    }

    /**
     * The nodes in the order of {@code hashKey}'s hash, the order that picks a leader among equals (a stable sort);
     * each node's hash computed once.
     */
    static List<String> inHashOrder(List<String> nodes, IpAddress hashKey) {
        List<String> sorted = new ArrayList<>(nodes.size());
        for (int i : hashOrder(nodes, hashKey)) {
            sorted.add(nodes.get(i));
        }
        return sorted;
    }

    /** {@link #inHashOrder} as positions in {@code nodes}. */
    static int[] hashOrder(List<String> nodes, IpAddress hashKey) {
        String key = hashKey.toString();
        List<Map.Entry<byte[], Integer>> hashed = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            hashed.add(Map.entry(hash(nodes.get(i), key), i));
        }
        hashed.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
        int[] order = new int[hashed.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = hashed.get(i).getValue();
        }
        return order;
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

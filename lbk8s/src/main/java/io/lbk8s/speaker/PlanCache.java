package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.Config;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The speaker's plans ({@link NodePlan#compute}, {@link BgpPlan#compute}) computed again only for the Services that
 * changed: each Service's share of a plan depends on that Service and on the cluster-wide inputs alone (this node, the
 * configuration, the nodes as the API and the failure detector show them, the interfaces, the options, and for BGP the
 * peers' passwords), so while those stay equal a Service equal to the one planned before keeps its share, and the plan
 * is its shares added up again in the Services' order. When anything cluster-wide changes, every share is computed
 * anew. The result equals what {@code compute} returns for the same inputs; at 10,000 Services a plan after one
 * Service changed no longer decides 10,000 times.
 *
 * <p>Used from one thread (the speaker's reconcile).
 */
public final class PlanCache {
    /** What every layer-2 share is computed against. */
    private record NodeFacts(
            String node,
            Config config,
            Collection<NodeState> nodes,
            LeaderChoice.Options options,
            List<LinkInfo> links,
            List<Pattern> excludedInterfaces) {
        static NodeFacts of(NodePlan.Inputs in) {
            return new NodeFacts(
                    in.node(), in.config(), List.copyOf(in.nodes()), in.options(), in.links(), in.excludedInterfaces());
        }
    }

    /** What every BGP share is computed against: the layer-2 facts and the peers' passwords. */
    private record BgpFacts(NodeFacts node, Map<String, String> passwords, Map<String, String> unreadable) {}

    private final Shares<NodeFacts, NodePlan.Share> nodeShares = new Shares<>();
    private final Shares<BgpFacts, BgpPlan.Share> bgpShares = new Shares<>();
    // kept whatever else changes: a node turning Ready or not, or a new configuration, hashes nothing again
    private final HashOrders hashOrders = new HashOrders();

    /** Equal to {@link NodePlan#compute}{@code (in)}. */
    public NodePlan nodePlan(NodePlan.Inputs in) {
        NodePlan.Frame frame = NodePlan.Frame.of(in, hashOrders);
        NodePlan plan =
                NodePlan.of(nodeShares.of(NodeFacts.of(in), in.services(), service -> NodePlan.share(frame, service)));
        if (hashOrders.size() > in.services().size()) { // orders of addresses no Service has any more
            Set<IpAddress> keys = new HashSet<>();
            for (ServiceState service : in.services()) {
                if (!service.ips().isEmpty()) {
                    keys.add(service.ips().getFirst());
                }
            }
            hashOrders.retain(keys);
        }
        return plan;
    }

    /** Equal to {@link BgpPlan#compute}{@code (in, passwords, unreadable)}. */
    public BgpPlan bgpPlan(NodePlan.Inputs in, Map<String, String> passwords, Map<String, String> unreadable) {
        Optional<BgpPlan.Frame> frame = BgpPlan.Frame.of(in, passwords, unreadable, hashOrders);
        if (frame.isEmpty()) {
            bgpShares.clear();
            return BgpPlan.EMPTY;
        }
        BgpFacts facts = new BgpFacts(NodeFacts.of(in), Map.copyOf(passwords), Map.copyOf(unreadable));
        return BgpPlan.of(
                frame.get(), bgpShares.of(facts, in.services(), service -> BgpPlan.share(in, frame.get(), service)));
    }

    /** How many Services' layer-2 and BGP shares the last plans computed anew (the others were kept). */
    public int recomputed() {
        return nodeShares.recomputed + bgpShares.recomputed;
    }

    /** How many addresses' hash orders are kept. */
    int hashOrdersKept() {
        return hashOrders.size();
    }

    /** The shares of the last plan by Service, and the facts they were computed against. */
    private static final class Shares<F, S> {
        /** A Service's share, and the last plan that read it. */
        private static final class Kept<S> {
            final ServiceState service;
            final S share;
            long plan;

            Kept(ServiceState service, S share) {
                this.service = service;
                this.share = share;
            }
        }

        private F facts;
        private final Map<ServiceKey, Kept<S>> kept = new HashMap<>();
        private long plans;
        private int recomputed;

        List<S> of(F factsNow, Collection<ServiceState> services, Function<ServiceState, S> share) {
            if (!factsNow.equals(facts)) {
                kept.clear();
                facts = factsNow;
            }
            recomputed = 0;
            long plan = ++plans;
            List<S> shares = new ArrayList<>(services.size());
            for (ServiceState service : services) {
                Kept<S> before = kept.get(service.key());
                if (before == null || (before.service != service && !before.service.equals(service))) {
                    before = new Kept<>(service, share.apply(service));
                    kept.put(service.key(), before);
                    recomputed++;
                }
                before.plan = plan;
                shares.add(before.share);
            }
            if (kept.size() > shares.size()) { // some Services are gone
                kept.values().removeIf(k -> k.plan != plan);
            }
            return shares;
        }

        void clear() {
            kept.clear();
            facts = null;
            recomputed = 0;
        }
    }
}

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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What one node announces, and what it must tell users about, given the whole cluster's state: the per-node half
 * of the speaker's decisions, pure so that it can be tested with tables.
 *
 * @param announced the addresses this node answers for, with the Services behind them and the interfaces used
 * @param problems  sentences this node reports as Warning events: addresses nobody announces (each reported by one
 *                  agreed node) and addresses this node leads but cannot answer on any interface
 */
public record NodePlan(Map<IpAddress, Announced> announced, List<Problem> problems) {

    public static final NodePlan EMPTY = new NodePlan(Map.of(), List.of());

    public NodePlan {
        announced = Map.copyOf(announced);
        problems = List.copyOf(problems);
    }

    public record Announced(IpAddress ip, Set<ServiceKey> services, List<LinkInfo> links) {
        public Announced {
            services = Set.copyOf(services);
            links = List.copyOf(links);
        }
    }

    public record Problem(ServiceKey service, IpAddress ip, String reason) {}

    public record Inputs(
            String node,
            Config config,
            Collection<ServiceState> services,
            Collection<NodeState> nodes,
            LeaderChoice.Options options,
            List<LinkInfo> links,
            List<Pattern> excludedInterfaces) {}

    public static NodePlan compute(Inputs in) {
        Frame frame = Frame.of(in, new HashOrders());
        List<Share> shares = new ArrayList<>(in.services().size());
        for (ServiceState service : in.services()) {
            shares.add(share(frame, service));
        }
        return of(shares);
    }

    /**
     * What every Service's share is computed against: the inputs, with what the decisions read of the nodes, the
     * configuration and the interfaces worked out once for all the Services.
     */
    record Frame(Inputs in, LeaderChoice.Decider leaders, InterfaceChoice.Usable links) {
        static Frame of(Inputs in, HashOrders hashOrders) {
            return new Frame(
                    in,
                    new LeaderChoice.Decider(in.config(), in.nodes(), in.options(), hashOrders),
                    InterfaceChoice.Usable.of(in.links(), in.excludedInterfaces()));
        }
    }

    /**
     * What one Service adds to this node's plan: the addresses it leads with the interfaces it answers on, and its
     * problems. It depends on the Service and on the cluster-wide inputs only, so that {@link PlanCache} may keep it
     * while neither changes.
     */
    record Share(ServiceKey service, List<Led> led, List<Problem> problems) {
        Share {
            led = List.copyOf(led);
            problems = List.copyOf(problems);
        }
    }

    /** An address the Service leads from this node, and what the plan announces when no other Service shares it. */
    record Led(IpAddress ip, List<LinkInfo> links, Announced alone) {}

    static Share share(Frame frame, ServiceState service) {
        Inputs in = frame.in();
        List<Led> led = new ArrayList<>(1);
        List<Problem> problems = new ArrayList<>(0);
        for (Announcement announcement : frame.leaders().decide(service)) {
            switch (announcement) {
                case Announcement.Led mine
                when mine.node().equals(in.node()) -> {
                    List<LinkInfo> links = frame.links().choose(mine.ip(), mine.advertisements());
                    if (links.isEmpty()) {
                        problems.add(new Problem(
                                service.key(),
                                mine.ip(),
                                InterfaceChoice.noInterface(mine.ip(), in.node(), mine.advertisements(), in.links())));
                    } else {
                        led.add(new Led(mine.ip(), links, new Announced(mine.ip(), Set.of(service.key()), links)));
                    }
                }
                case Announcement.Led _, Announcement.BgpOnly _ -> {
                    /* another node announces it, or layer 2 does not */
                }
                case Announcement.Unannounced(IpAddress ip, String reason) -> {
                    boolean mine = frame.leaders()
                            .reporterOf(service.ips().getFirst())
                            .map(in.node()::equals)
                            .orElse(false);
                    if (mine) {
                        problems.add(new Problem(service.key(), ip, reason));
                    }
                }
            }
        }
        return new Share(service.key(), led, problems);
    }

    /** The plan the Services' shares add up to, in their order. */
    static NodePlan of(Iterable<Share> shares) {
        // hashed, not sorted: the plan keeps them in no order (Map.copyOf), and at 10,000 Services sorting cost
        Map<IpAddress, Announced> announced = new HashMap<>();
        List<Problem> problems = new ArrayList<>();
        for (Share share : shares) {
            for (Led led : share.led()) {
                Announced before = announced.putIfAbsent(led.ip(), led.alone());
                if (before != null) { // Services that share an address: announced on the last one's interfaces
                    Set<ServiceKey> services = new HashSet<>(before.services());
                    services.add(share.service());
                    announced.put(led.ip(), new Announced(led.ip(), services, led.links()));
                }
            }
            problems.addAll(share.problems());
        }
        return new NodePlan(announced, problems);
    }

    /**
     * The addresses {@code next} gives this node that, under the inputs of {@code previous}, another node led and that
     * node has since failed silently (its fence lapsed before its peers noticed): these may be taken after a brief
     * probe. Any other new address (a live node handing it over, a node that left, a new Service) is taken only after
     * a longer quiet probe.
     */
    public static Set<IpAddress> takenFromFailedNodes(
            Inputs previousInputs, NodePlan previous, NodePlan next, Predicate<String> failedSilently) {
        Set<IpAddress> taken = new HashSet<>(next.announced().keySet());
        taken.removeAll(previous.announced().keySet());
        // a leader is one of the nodes: when none failed silently, no address came from one (the common case, and
        // after a node turned not Ready thousands of addresses would be decided again for nothing)
        if (taken.isEmpty()
                || previousInputs.nodes().stream().map(NodeState::name).noneMatch(failedSilently)) {
            return Set.of();
        }
        LeaderChoice.Decider leaders = new LeaderChoice.Decider(
                previousInputs.config(), previousInputs.nodes(), previousInputs.options(), new HashOrders());
        Set<IpAddress> fromFailed = new TreeSet<>();
        for (ServiceState service : previousInputs.services()) {
            if (!holdsAny(service, taken)) {
                continue; // what the plan before decided of it cannot say where a taken address was
            }
            for (Announcement before : leaders.decide(service)) {
                if (before instanceof Announcement.Led led
                        && taken.contains(led.ip())
                        && failedSilently.test(led.node())) {
                    fromFailed.add(led.ip());
                }
            }
        }
        return Set.copyOf(fromFailed);
    }

    private static boolean holdsAny(ServiceState service, Set<IpAddress> addresses) {
        for (IpAddress ip : service.ips()) {
            if (addresses.contains(ip)) {
                return true;
            }
        }
        return false;
    }

    /**
     * This plan without the addresses {@code refused} gives a reason for: each of their Services gets that reason as
     * a problem instead.
     */
    public NodePlan withheld(java.util.function.Function<IpAddress, java.util.Optional<String>> refused) {
        Map<IpAddress, Announced> kept = new TreeMap<>();
        List<Problem> more = new ArrayList<>(problems);
        for (Announced a : announced.values()) {
            java.util.Optional<String> why = refused.apply(a.ip());
            if (why.isPresent()) {
                a.services().stream().sorted().forEach(s -> more.add(new Problem(s, a.ip(), why.get())));
            } else {
                kept.put(a.ip(), a);
            }
        }
        return kept.size() == announced.size() ? this : new NodePlan(kept, more);
    }

    /** This plan with {@code more} problems (those of BGP), each said once. */
    public NodePlan reporting(List<Problem> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<Problem> all = new ArrayList<>(problems);
        all.addAll(more);
        return new NodePlan(announced, all.stream().distinct().toList());
    }

    /** This plan without {@code addresses}, and without problems about them. */
    public NodePlan without(Set<IpAddress> addresses) {
        if (addresses.stream().noneMatch(announced::containsKey)) {
            return this;
        }
        Map<IpAddress, Announced> kept = new TreeMap<>(announced);
        kept.keySet().removeAll(addresses);
        return new NodePlan(
                kept, problems.stream().filter(p -> !addresses.contains(p.ip())).toList());
    }

    /** The Services this node announces, with the names of the interfaces each is answered on. */
    public Map<ServiceKey, Set<String>> interfacesByService() {
        Map<ServiceKey, Set<String>> result = new TreeMap<>();
        for (Announced a : announced.values()) {
            for (ServiceKey key : a.services()) {
                a.links()
                        .forEach(l -> result.computeIfAbsent(key, k -> new TreeSet<>())
                                .add(l.name()));
            }
        }
        return result;
    }
}

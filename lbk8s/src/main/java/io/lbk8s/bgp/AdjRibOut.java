package io.lbk8s.bgp;

import io.lbk8s.address.IpPrefix;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * RFC 4271 3.2's Adj-RIB-Out: from the routes a peer was last sent and the routes it should have, the UPDATEs that
 * make it so. Routes with identical attributes share UPDATEs, each at most 4096 octets.
 */
public final class AdjRibOut {
    private AdjRibOut() {}

    /**
     * @param updates what to send, in order
     * @param sent    what the peer has after them, by prefix
     */
    public record Plan(List<Message.Update> updates, Map<IpPrefix, Route> sent) {
        public Plan {
            updates = List.copyOf(updates);
            sent = Map.copyOf(sent);
        }
    }

    /** The UPDATEs for what changed: withdrawals first, then new or changed routes. */
    public static Plan changes(Map<IpPrefix, Route> sent, Collection<Route> wanted, SessionContext session) {
        Map<IpPrefix, Route> target = sendable(wanted, session);
        List<IpPrefix> withdrawn = new ArrayList<>();
        for (IpPrefix prefix : sent.keySet()) {
            if (!target.containsKey(prefix)) {
                withdrawn.add(prefix);
            }
        }
        List<Route> announced = new ArrayList<>();
        for (Route route : target.values()) {
            if (!route.equals(sent.get(route.prefix()))) {
                announced.add(route); // a changed route replaces the old one implicitly (RFC 4271 3.1)
            }
        }
        List<Message.Update> updates = new ArrayList<>(UpdatePacker.withdrawals(withdrawn));
        updates.addAll(announcements(announced, session));
        return new Plan(updates, target);
    }

    /** Every route the peer should have, then End-of-RIB for each family: after OPEN or a ROUTE-REFRESH. */
    public static Plan everything(Collection<Route> wanted, SessionContext session) {
        Map<IpPrefix, Route> target = sendable(wanted, session);
        List<Message.Update> updates = new ArrayList<>(announcements(target.values(), session));
        for (Family family : Family.values()) {
            if (session.families().contains(family)) {
                updates.add(Message.Update.endOfRib(family));
            }
        }
        return new Plan(updates, target);
    }

    /** The routes this session can carry: of a negotiated family, with a next hop of that family. */
    static Map<IpPrefix, Route> sendable(Collection<Route> wanted, SessionContext session) {
        Map<IpPrefix, Route> routes = new TreeMap<>(AdjRibOut::compare);
        for (Route route : wanted) {
            if (session.nextHop(Family.of(route.prefix().family())).isPresent()) {
                Route canonical = canonical(route);
                routes.put(canonical.prefix(), canonical);
            }
        }
        return routes;
    }

    /**
     * The route written with its network address. A Service's address (/32, /128) is its own network: the route is
     * kept as it is, as the speaker's plan holds it, and not copied: at 10,000 routes the copies were a third of what a
     * full table allocated, on a heap that the speaker's informer stores keep nearly full.
     */
    private static Route canonical(Route route) {
        IpPrefix prefix = route.prefix();
        if (prefix.length() == prefix.family().bits()) {
            return route;
        }
        IpPrefix network = prefix.canonical();
        return network.equals(prefix) ? route : new Route(network, route.localPref(), route.communities());
    }

    /** What a route's attributes on one session follow from: routes alike share them, made once. */
    private record Alike(Family family, OptionalLong localPref, List<Community> communities) {}

    private static List<Message.Update> announcements(Collection<Route> routes, SessionContext session) {
        Map<List<PathAttribute>, List<IpPrefix>> byAttributes = new LinkedHashMap<>();
        // the attributes once per kind of route, not once per route (10,000 lists of records made and hashed before)
        Map<Alike, Optional<List<IpPrefix>>> groups = new HashMap<>();
        for (Route route : routes) {
            Family family = Family.of(route.prefix().family());
            Optional<List<IpPrefix>> group = groups.computeIfAbsent(
                    new Alike(family, route.localPref(), route.communities()),
                    alike -> RouteAttributes.of(route, family, session)
                            .map(a -> byAttributes.computeIfAbsent(a, k -> new ArrayList<>())));
            group.ifPresent(prefixes -> prefixes.add(route.prefix()));
        }
        List<Message.Update> updates = new ArrayList<>();
        byAttributes.forEach(
                (attributes, prefixes) -> updates.addAll(UpdatePacker.announcements(attributes, prefixes)));
        return updates;
    }

    private static int compare(IpPrefix a, IpPrefix b) {
        int byAddress = a.address().compareTo(b.address());
        return byAddress != 0 ? byAddress : Integer.compare(a.length(), b.length());
    }
}

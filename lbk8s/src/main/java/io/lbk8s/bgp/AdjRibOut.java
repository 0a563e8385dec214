package io.lbk8s.bgp;

import io.lbk8s.address.IpPrefix;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
            IpPrefix prefix = route.prefix().canonical();
            if (session.nextHop(Family.of(prefix.family())).isPresent()) {
                routes.put(prefix, new Route(prefix, route.localPref(), route.communities()));
            }
        }
        return routes;
    }

    private static List<Message.Update> announcements(Collection<Route> routes, SessionContext session) {
        Map<List<PathAttribute>, List<IpPrefix>> byAttributes = new LinkedHashMap<>();
        for (Route route : routes) {
            Family family = Family.of(route.prefix().family());
            Optional<List<PathAttribute>> attributes = RouteAttributes.of(route, family, session);
            attributes.ifPresent(
                    a -> byAttributes.computeIfAbsent(a, k -> new ArrayList<>()).add(route.prefix()));
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

package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/** Reads what FRR 8.4's vtysh prints with {@code json}: neighbors, the paths to a prefix, BFD peers. */
final class FrrJson {

    private FrrJson() {}

    /** {@code show bgp neighbors json}: an object keyed by neighbor address. */
    static List<RouterSession> sessions(JsonNode neighbors) {
        List<RouterSession> sessions = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : neighbors.properties()) {
            if (!isAddress(entry.getKey())) {
                continue; // peer-group members are listed by address; anything else is not a session
            }
            JsonNode n = entry.getValue();
            String state = n.path("bgpState").asString("");
            sessions.add(new RouterSession(
                    Addressing.literal(entry.getKey()), "Established".equals(state), state, lastError(n)));
        }
        return List.copyOf(sessions);
    }

    /**
     * The NOTIFICATION FRR last sent or received, else why it last reset the session. FRR prints the notification as
     * "OPEN Message Error/Bad Peer AS"; a password mismatch sends none (the segments are dropped), so there is only
     * the state.
     */
    private static String lastError(JsonNode neighbor) {
        String notification = neighbor.path("lastNotificationReason").asString("");
        if (!notification.isEmpty()) {
            return notification;
        }
        String reset = neighbor.path("lastResetDueTo").asString("");
        // FRR's reason before any reset happened; not an error
        return reset.equals("Waiting for peer OPEN") ? "" : reset;
    }

    /** {@code show bgp ipv4 unicast <prefix> json}: the prefix with its paths; {@code {}} when there is none. */
    static List<RibPath> paths(String prefix, JsonNode route) {
        List<RibPath> paths = new ArrayList<>();
        for (JsonNode path : route.path("paths")) {
            String nextHop = nextHop(path);
            if (nextHop.isEmpty()) {
                continue;
            }
            List<String> communities = new ArrayList<>();
            path.path("community").path("list").forEach(c -> communities.add(c.asString()));
            if (communities.isEmpty() && path.path("community").has("string")) {
                communities.addAll(
                        List.of(path.path("community").path("string").asString().split(" ")));
            }
            OptionalLong localPref =
                    path.has("locPrf") ? OptionalLong.of(path.path("locPrf").asLong()) : OptionalLong.empty();
            boolean best = path.path("bestpath").path("overall").asBoolean(false);
            paths.add(new RibPath(
                    route.path("prefix").asString(prefix), Addressing.literal(nextHop), best, localPref, communities));
        }
        return List.copyOf(paths);
    }

    /** The same output: next hops of the paths FRR flags {@code "stale": true} (graceful restart, RFC 4724). */
    static List<InetAddress> staleNextHops(JsonNode route) {
        List<InetAddress> stale = new ArrayList<>();
        for (JsonNode path : route.path("paths")) {
            String nextHop = nextHop(path);
            if (path.path("stale").asBoolean(false) && !nextHop.isEmpty()) {
                stale.add(Addressing.literal(nextHop));
            }
        }
        return List.copyOf(stale);
    }

    /** One neighbor of {@code show bgp neighbors json}: {@code gracefulRestartInfo.rBit}, when FRR prints it. */
    static Optional<Boolean> restartState(JsonNode neighbor) {
        JsonNode bit = neighbor.path("gracefulRestartInfo").path("rBit");
        return bit.isBoolean() ? Optional.of(bit.asBoolean()) : Optional.empty();
    }

    /**
     * One neighbor of {@code show bgp neighbors json}: whether FRR has received its End-of-RIB for {@code family}
     * ({@code ipv4Unicast}) since the session came up ({@code gracefulRestartInfo.<family>.endOfRibStatus.endOfRibRecv}).
     */
    static boolean endOfRibReceived(JsonNode neighbor, String family) {
        return neighbor.path("gracefulRestartInfo")
                .path(family)
                .path("endOfRibStatus")
                .path("endOfRibRecv")
                .asBoolean(false);
    }

    /** An IPv6 path lists the global next hop and the link-local one; traffic goes by the global one. */
    private static String nextHop(JsonNode path) {
        for (JsonNode hop : path.path("nexthops")) {
            if (!"link-local".equals(hop.path("scope").asString(""))) {
                return hop.path("ip").asString("");
            }
        }
        return "";
    }

    /** {@code show bfd peers json}: an array of sessions with {@code peer} and {@code status}. */
    static List<RouterBfdPeer> bfdPeers(JsonNode peers) {
        List<RouterBfdPeer> result = new ArrayList<>();
        for (JsonNode peer : peers) {
            String status = peer.path("status").asString("");
            result.add(
                    new RouterBfdPeer(Addressing.literal(peer.path("peer").asString()), "up".equals(status), status));
        }
        return List.copyOf(result);
    }

    private static boolean isAddress(String text) {
        return text.matches("[0-9a-fA-F:.]+") && (text.contains(".") || text.contains(":"));
    }
}

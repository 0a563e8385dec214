package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/** Reads what the gobgp 3.10 CLI prints with {@code -j}: neighbors and the paths of its global RIB. */
final class GobgpJson {

    /** gobgp's session_state enum (its API's PeerState.SessionState), by number. */
    private static final List<String> SESSION_STATES =
            List.of("Unknown", "Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established");

    private static final int ATTRIBUTE_LOCAL_PREF = 5;
    private static final int ATTRIBUTE_NEXT_HOP = 3;
    private static final int ATTRIBUTE_COMMUNITIES = 8;
    private static final int ATTRIBUTE_MP_REACH = 14;

    private GobgpJson() {}

    /**
     * {@code gobgp neighbor -j}: an array of peers. GoBGP keeps no last error in its API; {@code lastErrors} (from its
     * log, by neighbor address) fills it in.
     */
    static List<RouterSession> sessions(JsonNode neighbors, Map<String, String> lastErrors) {
        List<RouterSession> sessions = new ArrayList<>();
        for (JsonNode peer : neighbors) {
            String address = peer.path("state").path("neighbor_address").asString("");
            if (address.isEmpty()) {
                address = peer.path("conf").path("neighbor_address").asString("");
            }
            int number = peer.path("state").path("session_state").asInt(0);
            String state = number >= 0 && number < SESSION_STATES.size() ? SESSION_STATES.get(number) : "" + number;
            sessions.add(new RouterSession(
                    Addressing.literal(address),
                    "Established".equals(state),
                    state,
                    lastErrors.getOrDefault(address, "")));
        }
        return List.copyOf(sessions);
    }

    /**
     * {@code gobgp global rib -a <family> [prefix] -j}: an object of prefix to paths. {@code prefix} keeps only that
     * prefix's paths (gobgp's lookup may return a covering one); null keeps all.
     */
    static List<RibPath> paths(String prefix, JsonNode rib) {
        List<RibPath> paths = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : rib.properties()) {
            if (prefix != null && !entry.getKey().equals(prefix)) {
                continue;
            }
            for (JsonNode path : entry.getValue()) {
                paths.add(path(entry.getKey(), path));
            }
        }
        return List.copyOf(paths);
    }

    /** The same output: next hops of the paths GoBGP marks {@code "stale": true} (graceful restart, RFC 4724). */
    static List<InetAddress> staleNextHops(String prefix, JsonNode rib) {
        List<InetAddress> stale = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : rib.properties()) {
            if (!entry.getKey().equals(prefix)) {
                continue;
            }
            for (JsonNode path : entry.getValue()) {
                InetAddress hop = path(prefix, path).nextHop();
                if (path.path("stale").asBoolean(false) && !stale.contains(hop)) {
                    stale.add(hop);
                }
            }
        }
        return List.copyOf(stale);
    }

    private static RibPath path(String prefix, JsonNode path) {
        String nextHop = "";
        OptionalLong localPref = OptionalLong.empty();
        List<String> communities = new ArrayList<>();
        for (JsonNode attribute : path.path("attrs")) {
            switch (attribute.path("type").asInt()) {
                case ATTRIBUTE_NEXT_HOP, ATTRIBUTE_MP_REACH ->
                    nextHop = attribute.path("nexthop").asString(nextHop);
                case ATTRIBUTE_LOCAL_PREF ->
                    localPref = OptionalLong.of(attribute.path("value").asLong());
                case ATTRIBUTE_COMMUNITIES ->
                    attribute.path("communities").forEach(c -> communities.add(community(c.asLong())));
                default -> {}
            }
        }
        return new RibPath(
                prefix,
                Addressing.literal(nextHop.isEmpty() ? "0.0.0.0" : nextHop),
                path.path("best").asBoolean(false),
                localPref,
                communities);
    }

    /** A standard community as a 32-bit number, written as {@code high:low}. */
    static String community(long value) {
        return (value >>> 16) + ":" + (value & 0xFFFF);
    }
}

package io.lbk8s.testkit.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads what BIRD 2.0's birdc prints (text only: it has no JSON): protocols, routes, BFD sessions. */
final class BirdText {

    /** {@code peer_0     BGP        ---        up     15:52:01.234  Established}: a protocol's first line. */
    private static final Pattern PROTOCOL = Pattern.compile("^(\\S+)\\s+(\\S+)\\s+\\S+\\s+\\S+\\s+.*$");

    private static final Pattern FIELD = Pattern.compile("^\\s+([A-Za-z .]+):\\s+(.*?)\\s*$");

    /** {@code 198.18.7.200/32      unicast [peer_0 15:52:03.456] * (100) [AS64512i]}; later paths omit the prefix. */
    private static final Pattern ROUTE =
            Pattern.compile("^(\\S+/\\d+)?\\s+\\w+ \\[(\\S+) [^\\]]*\\](\\s+\\*)?\\s+\\(\\d+\\).*$");

    private static final Pattern VIA = Pattern.compile("^\\s+via (\\S+) on \\S+");
    private static final Pattern COMMUNITY = Pattern.compile("\\((\\d+),(\\d+)\\)");
    private static final Pattern BFD_SESSION = Pattern.compile("^([0-9a-fA-F:.]+)\\s+\\S+\\s+(\\S+)\\s+.*$");

    private BirdText() {}

    /**
     * {@code show protocols all}: the BGP protocols with a neighbor address (a dynamic range's template has none; the
     * sessions it spawns do). The state is BIRD's {@code BGP state}, the error its {@code Last error}.
     */
    static List<RouterSession> sessions(String text) {
        List<RouterSession> sessions = new ArrayList<>();
        String neighbor = null;
        String state = "";
        String error = "";
        boolean bgp = false;
        for (String line : text.lines().toList()) {
            Matcher protocol = PROTOCOL.matcher(line);
            if (!line.startsWith(" ") && protocol.matches() && !line.startsWith("Name ")) {
                addSession(sessions, bgp, neighbor, state, error);
                bgp = protocol.group(2).equals("BGP");
                neighbor = null;
                state = "";
                error = "";
                continue;
            }
            Matcher field = FIELD.matcher(line);
            if (bgp && field.matches()) {
                switch (field.group(1).strip()) {
                    case "BGP state" -> state = field.group(2);
                    case "Neighbor address" -> neighbor = field.group(2);
                    case "Last error" -> error = field.group(2);
                    default -> {}
                }
            }
        }
        addSession(sessions, bgp, neighbor, state, error);
        return List.copyOf(sessions);
    }

    private static void addSession(
            List<RouterSession> sessions, boolean bgp, String neighbor, String state, String error) {
        if (bgp && neighbor != null) {
            sessions.add(new RouterSession(
                    Addressing.literal(neighbor.split("%")[0]), "Established".equals(state), state, error));
        }
    }

    /**
     * {@code show protocols all}: per BGP neighbour, whether BIRD keeps its paths as stale and, from its {@code Neighbor
     * capabilities} (printed only while Established), the Restart State bit and the families with forwarding preserved.
     */
    static List<BirdGracefulRestart> gracefulRestarts(String text) {
        List<BirdGracefulRestart> result = new ArrayList<>();
        RestartBuilder current = null;
        boolean neighborCapabilities = false;
        for (String line : text.lines().toList()) {
            Matcher protocol = PROTOCOL.matcher(line);
            if (!line.startsWith(" ") && protocol.matches() && !line.startsWith("Name ")) {
                if (current != null) {
                    current.build().ifPresent(result::add);
                }
                current = protocol.group(2).equals("BGP") ? new RestartBuilder(protocol.group(1)) : null;
                neighborCapabilities = false;
                continue;
            }
            if (current == null) {
                continue;
            }
            String field = line.strip();
            if (field.startsWith("Neighbor address:")) {
                current.neighbor = field.substring("Neighbor address:".length()).strip();
            } else if (field.equals("Neighbor graceful restart active")) {
                current.active = true;
            } else if (field.equals("Local capabilities")) {
                neighborCapabilities = false;
            } else if (field.equals("Neighbor capabilities")) {
                neighborCapabilities = true;
            } else if (field.startsWith("Session:")) {
                neighborCapabilities = false;
            } else if (neighborCapabilities && field.equals("Graceful restart")) {
                current.restartState = Optional.of(false);
            } else if (neighborCapabilities && field.equals("Restart recovery")) {
                current.restartState = Optional.of(true);
            } else if (neighborCapabilities && field.startsWith("AF preserved:")) {
                String families = field.substring("AF preserved:".length()).strip();
                current.preserved = families.isEmpty() ? List.of() : List.of(families.split("\\s+"));
            }
        }
        if (current != null) {
            current.build().ifPresent(result::add);
        }
        return List.copyOf(result);
    }

    /** {@code show route <prefix> all}: each path with its {@code via}, {@code BGP.local_pref}, {@code BGP.community}. */
    static List<RibPath> paths(String prefix, String text) {
        List<RibPath> paths = new ArrayList<>();
        PathBuilder current = null;
        String currentPrefix = prefix;
        for (String line : text.lines().toList()) {
            Matcher route = ROUTE.matcher(line);
            if (route.matches()) {
                if (current != null) {
                    current.build().ifPresent(paths::add);
                }
                if (route.group(1) != null) {
                    currentPrefix = route.group(1);
                }
                current = new PathBuilder(currentPrefix, route.group(3) != null);
                continue;
            }
            if (current == null) {
                continue;
            }
            Matcher via = VIA.matcher(line);
            if (via.find() && current.nextHop == null) {
                current.nextHop = via.group(1);
            }
            String stripped = line.strip();
            if (stripped.startsWith("BGP.local_pref:")) {
                current.localPref = OptionalLong.of(Long.parseLong(
                        stripped.substring("BGP.local_pref:".length()).strip()));
            } else if (stripped.startsWith("BGP.community:")) {
                Matcher c = COMMUNITY.matcher(stripped);
                while (c.find()) {
                    current.communities.add(c.group(1) + ":" + c.group(2));
                }
            } else if (stripped.startsWith("BGP.next_hop:") && current.nextHop == null) {
                current.nextHop =
                        stripped.substring("BGP.next_hop:".length()).strip().split(" ")[0];
            }
        }
        if (current != null) {
            current.build().ifPresent(paths::add);
        }
        return List.copyOf(paths);
    }

    /** {@code show bfd sessions}: {@code 198.18.7.11  eth0  Up  15:52:01.234  0.300  0.900}. */
    static List<RouterBfdPeer> bfdPeers(String text) {
        List<RouterBfdPeer> peers = new ArrayList<>();
        for (String line : text.lines().toList()) {
            Matcher m = BFD_SESSION.matcher(line);
            if (m.matches() && (m.group(1).contains(".") || m.group(1).contains(":"))) {
                peers.add(new RouterBfdPeer(Addressing.literal(m.group(1)), "Up".equals(m.group(2)), m.group(2)));
            }
        }
        return List.copyOf(peers);
    }

    private static final class RestartBuilder {
        private final String protocol;
        private String neighbor;
        private boolean active;
        private Optional<Boolean> restartState = Optional.empty();
        private List<String> preserved = List.of();

        RestartBuilder(String protocol) {
            this.protocol = protocol;
        }

        Optional<BirdGracefulRestart> build() {
            if (neighbor == null) {
                return Optional.empty(); // a dynamic range's template: no neighbour of its own
            }
            return Optional.of(new BirdGracefulRestart(
                    protocol, Addressing.literal(neighbor.split("%")[0]), active, restartState, preserved));
        }
    }

    private static final class PathBuilder {
        private final String prefix;
        private final boolean best;
        private String nextHop;
        private OptionalLong localPref = OptionalLong.empty();
        private final List<String> communities = new ArrayList<>();

        PathBuilder(String prefix, boolean best) {
            this.prefix = prefix;
            this.best = best;
        }

        Optional<RibPath> build() {
            if (nextHop == null) {
                return Optional.empty();
            }
            return Optional.of(new RibPath(prefix, Addressing.literal(nextHop), best, localPref, communities));
        }
    }
}

package io.lbk8s.testkit.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link RouterConfig} in BIRD 2.0's configuration language. As the router it imports every path from its peers,
 * re-advertises them to the other peers (as FRR and GoBGP do) and exports them to the kernel ({@code merge paths} for ECMP); as a node's speaker it exports the static
 * routes of {@code announced.conf} (which {@link BirdRouter#announce} rewrites) and programs no FIB.
 */
final class BirdConfig {

    static final String ANNOUNCED = "announced.conf";

    private BirdConfig() {}

    static String render(RouterConfig config, boolean router, java.nio.file.Path directory) {
        List<String> lines = new ArrayList<>();
        lines.add("router id " + Addressing.text(config.routerId()) + ";");
        lines.add("log stderr all;");
        lines.add("protocol device { scan time 10; }");
        if (router) {
            for (String family : List.of("ipv4", "ipv6")) {
                lines.add("protocol kernel kernel_" + family + " {");
                lines.add("  " + family + " { import none; export where source = RTS_BGP; };");
                if (config.multipath()) {
                    lines.add("  merge paths on;");
                }
                if (config.gracefulRestart()) {
                    // after a graceful restart (bird -R) the kernel routes the last run left stay until the peers'
                    // End-of-RIB, instead of being synchronised with an empty table at start
                    lines.add("  graceful restart on;");
                }
                lines.add("}");
            }
        } else {
            for (String family : List.of("ipv4", "ipv6")) {
                // BIRD's lexer takes an include only at the start of a line
                lines.add("protocol static announced_" + family + " {");
                lines.add("  " + family + ";");
                lines.add("  include \"" + directory.resolve(ANNOUNCED + "." + family) + "\";");
                lines.add("}");
            }
        }
        // BIRD sets BFD timers per interface, not per session: the first peer's timers apply to all
        Optional<BfdTimers> bfd =
                config.peers().stream().flatMap(p -> p.bfd().stream()).findFirst();
        bfd.ifPresent(t -> {
            lines.add("protocol bfd {");
            lines.add("  interface \"*\" {");
            lines.add("    min rx interval " + t.receiveInterval().toMillis() + " ms;");
            lines.add("    min tx interval " + t.transmitInterval().toMillis() + " ms;");
            lines.add("    multiplier " + t.detectMultiplier() + ";");
            lines.add("  };");
            lines.add("}");
        });
        int n = 0;
        for (RouterPeer peer : config.peers()) {
            lines.add("protocol bgp peer_" + n++ + " {");
            lines.add("  local as " + config.asn() + ";");
            if (peer.match() instanceof RouterPeer.PeerMatch.Range range) {
                lines.add("  neighbor range " + range + " as " + peer.asn() + ";");
            } else {
                lines.add("  neighbor " + peer.match() + " as " + peer.asn() + ";");
            }
            // BIRD waits 120 s between attempts and 60 s after an error by default: longer than most tests
            lines.add("  connect retry time " + FrrConfig.CONNECT_RETRY_SECONDS + ";");
            lines.add("  error wait time 1, 5;");
            // its log then says why a session went down or a connection was refused; BIRD logs neither by default
            lines.add("  debug { states, events };");
            peer.password().ifPresent(p -> lines.add("  password \"" + p + "\";"));
            peer.holdTime().ifPresent(h -> {
                lines.add("  hold time " + h.toSeconds() + ";");
                lines.add("  keepalive time " + Math.max(1, h.toSeconds() / 3) + ";");
            });
            if (peer.bfd().isPresent()) {
                lines.add("  bfd on;");
            }
            lines.add("  graceful restart " + (config.gracefulRestart() ? "on" : "off") + ";");
            String family = peer.ipv6() ? "ipv6" : "ipv4";
            lines.add(
                    router
                            // re-advertises what it learned, as FRR and GoBGP do by default
                            ? "  " + family + " { import all; export where source = RTS_BGP; };"
                            : "  " + family + " { import none; export where proto = \"announced_" + family + "\";"
                                    + " next hop self; };");
            lines.add("}");
        }
        return String.join("\n", lines) + "\n";
    }

    /**
     * The static routes a node's BIRD announces: {@code route P blackhole} (never in a FIB: a speaker has no kernel
     * protocol), with communities and LOCAL_PREF set on the route.
     */
    static String announced(List<BirdRouter.Announcement> announcements) {
        StringBuilder text = new StringBuilder();
        for (BirdRouter.Announcement a : announcements) {
            text.append("route ").append(a.prefix()).append(" blackhole {");
            a.communities()
                    .forEach(c -> text.append(" bgp_community.add((")
                            .append(c.replace(':', ','))
                            .append("));"));
            a.localPref()
                    .ifPresent(p -> text.append(" bgp_local_pref = ").append(p).append(";"));
            text.append(" };\n");
        }
        return text.toString();
    }
}

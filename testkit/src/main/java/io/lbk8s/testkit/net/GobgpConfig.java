package io.lbk8s.testkit.net;

import java.util.ArrayList;
import java.util.List;

/** A {@link RouterConfig} in gobgpd 3.10's TOML. GoBGP has no BFD: a peer with BFD is refused, not silently ignored. */
final class GobgpConfig {

    private GobgpConfig() {}

    static String toml(RouterConfig config) {
        List<String> lines = new ArrayList<>();
        lines.add("[global.config]");
        lines.add("  as = " + config.asn());
        lines.add("  router-id = \"" + Addressing.text(config.routerId()) + "\"");
        lines.add("[global.use-multiple-paths.config]");
        lines.add("  enabled = " + config.multipath());
        int ranges = 0;
        for (RouterPeer peer : config.peers()) {
            if (peer.bfd().isPresent()) {
                throw new IllegalArgumentException("GoBGP has no BFD; use FRR or BIRD for a peer with BFD: " + peer);
            }
            String family = peer.ipv6() ? "ipv6-unicast" : "ipv4-unicast";
            if (peer.match() instanceof RouterPeer.PeerMatch.Range range) {
                String group = "range-" + ranges++;
                lines.add("[[peer-groups]]");
                lines.add("  [peer-groups.config]");
                lines.add("    peer-group-name = \"" + group + "\"");
                lines.add("    peer-as = " + peer.asn());
                peer.password().ifPresent(p -> lines.add("    auth-password = \"" + p + "\""));
                timers(lines, "peer-groups", peer);
                gracefulRestart(lines, "peer-groups", config.gracefulRestart());
                afiSafi(lines, "peer-groups", family, config.gracefulRestart());
                lines.add("[[dynamic-neighbors]]");
                lines.add("  [dynamic-neighbors.config]");
                lines.add("    prefix = \"" + range + "\"");
                lines.add("    peer-group = \"" + group + "\"");
            } else {
                lines.add("[[neighbors]]");
                lines.add("  [neighbors.config]");
                lines.add("    neighbor-address = \"" + peer.match() + "\"");
                lines.add("    peer-as = " + peer.asn());
                peer.password().ifPresent(p -> lines.add("    auth-password = \"" + p + "\""));
                timers(lines, "neighbors", peer);
                gracefulRestart(lines, "neighbors", config.gracefulRestart());
                afiSafi(lines, "neighbors", family, config.gracefulRestart());
            }
        }
        return String.join("\n", lines) + "\n";
    }

    /** Retries every 2 s (GoBGP's default is 120 s, longer than most tests), and the hold time asked for. */
    private static void timers(List<String> lines, String table, RouterPeer peer) {
        lines.add("  [" + table + ".timers.config]");
        lines.add("    connect-retry = " + FrrConfig.CONNECT_RETRY_SECONDS);
        peer.holdTime().ifPresent(h -> {
            lines.add("    hold-time = " + h.toSeconds());
            lines.add("    keepalive-interval = " + Math.max(1, h.toSeconds() / 3));
        });
    }

    private static void gracefulRestart(List<String> lines, String table, boolean enabled) {
        if (enabled) {
            lines.add("  [" + table + ".graceful-restart.config]");
            lines.add("    enabled = true");
        }
    }

    private static void afiSafi(List<String> lines, String table, String family, boolean gracefulRestart) {
        lines.add("  [[" + table + ".afi-safis]]");
        lines.add("    [" + table + ".afi-safis.config]");
        lines.add("      afi-safi-name = \"" + family + "\"");
        if (gracefulRestart) {
            lines.add("    [" + table + ".afi-safis.mp-graceful-restart.config]");
            lines.add("      enabled = true");
        }
    }
}

package io.lbk8s.testkit.net;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A {@link RouterConfig} in FRR 8.4's configuration language, one file per daemon (bgpd, bfdd). */
final class FrrConfig {

    /** For test speed: FRR's default of 120 s between connection attempts would outlast most tests. */
    static final int CONNECT_RETRY_SECONDS = 2;

    private FrrConfig() {}

    static String bgpd(RouterConfig config, String hostname) {
        List<String> lines = new ArrayList<>();
        lines.add("frr defaults traditional");
        lines.add("hostname " + hostname);
        lines.add("!");
        lines.add("router bgp " + config.asn());
        lines.add(" bgp router-id " + Addressing.text(config.routerId()));
        // Without a policy FRR would accept and send nothing over eBGP (RFC 8212); a lab router accepts all.
        lines.add(" no bgp ebgp-requires-policy");
        lines.add(" no bgp default ipv4-unicast");
        lines.add(" bgp log-neighbor-changes");
        if (config.multipath()) {
            // nodes in different ASes (one AS per node is a common layout) are still equal paths
            lines.add(" bgp bestpath as-path multipath-relax");
        }
        lines.add(config.gracefulRestart() ? " bgp graceful-restart" : " bgp graceful-restart-disable");
        Map<String, String> bfdProfiles = bfdProfileNames(config);
        List<String> ipv4 = new ArrayList<>();
        List<String> ipv6 = new ArrayList<>();
        int ranges = 0;
        for (RouterPeer peer : config.peers()) {
            String name;
            if (peer.match() instanceof RouterPeer.PeerMatch.Range range) {
                name = "range-" + ranges++;
                lines.add(" neighbor " + name + " peer-group");
                // the group's AS first: FRR refuses a listen range for a group without one
                lines.add(" neighbor " + name + " remote-as " + peer.asn());
                lines.add(" bgp listen range " + range + " peer-group " + name);
            } else {
                name = peer.match().toString();
                lines.add(" neighbor " + name + " remote-as " + peer.asn());
            }
            lines.add(" neighbor " + name + " timers connect " + CONNECT_RETRY_SECONDS);
            peer.password().ifPresent(p -> lines.add(" neighbor " + name + " password " + p));
            peer.holdTime()
                    .ifPresent(h -> lines.add(
                            " neighbor " + name + " timers " + Math.max(1, h.toSeconds() / 3) + " " + h.toSeconds()));
            peer.bfd().ifPresent(t -> lines.add(" neighbor " + name + " bfd profile " + bfdProfiles.get(key(t))));
            (peer.ipv6() ? ipv6 : ipv4).add(name);
        }
        addressFamily(lines, "ipv4", ipv4, config.multipath());
        addressFamily(lines, "ipv6", ipv6, config.multipath());
        lines.add("exit");
        return String.join("\n", lines) + "\n";
    }

    /** One BFD profile per distinct set of timers; empty when no peer uses BFD. */
    static String bfdd(RouterConfig config, String hostname) {
        List<String> lines = new ArrayList<>(List.of("hostname " + hostname, "!", "bfd"));
        bfdProfileNames(config).forEach((timers, name) -> {
            String[] t = timers.split(" ");
            lines.add(" profile " + name);
            lines.add("  receive-interval " + t[0]);
            lines.add("  transmit-interval " + t[1]);
            lines.add("  detect-multiplier " + t[2]);
            lines.add(" exit");
        });
        lines.add("exit");
        return String.join("\n", lines) + "\n";
    }

    static String zebra(String hostname) {
        return "hostname " + hostname + "\n";
    }

    private static void addressFamily(List<String> lines, String family, List<String> neighbors, boolean multipath) {
        if (neighbors.isEmpty()) {
            return;
        }
        lines.add(" address-family " + family + " unicast");
        neighbors.forEach(n -> lines.add("  neighbor " + n + " activate"));
        int paths = multipath ? 64 : 1;
        lines.add("  maximum-paths " + paths);
        lines.add("  maximum-paths ibgp " + paths);
        lines.add(" exit-address-family");
    }

    private static Map<String, String> bfdProfileNames(RouterConfig config) {
        Map<String, String> names = new LinkedHashMap<>();
        config.peers().stream()
                .flatMap(p -> p.bfd().stream())
                .forEach(t -> names.putIfAbsent(key(t), "lbk8s-" + names.size()));
        return names;
    }

    private static String key(BfdTimers timers) {
        return timers.receiveInterval().toMillis() + " "
                + timers.transmitInterval().toMillis() + " " + timers.detectMultiplier();
    }
}

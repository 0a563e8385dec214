package io.lbk8s.install;

import io.lbk8s.ipam.ExcludedAddresses;
import java.util.Arrays;
import java.util.List;

/** The status command's human output. Pure. */
public final class StatusText {
    private StatusText() {}

    public static String report(StatusReport report) {
        StringBuilder out = new StringBuilder();
        if (report.pools().isEmpty()) {
            out.append("No address pools.\n");
        } else {
            Table pools = new Table("POOL", "ADDRESSES", "AUTO-ASSIGN", "USED", "FREE");
            report.pools()
                    .forEach(p -> pools.row(
                            p.name(),
                            String.join(",", p.addresses()),
                            String.valueOf(p.autoAssign()),
                            String.valueOf(p.used()),
                            p.free()));
            out.append(pools);
            report.pools().stream()
                    .filter(p -> !p.excluded().isEmpty())
                    .forEach(p -> out.append("pool ")
                            .append(p.name())
                            .append(": ")
                            .append(p.excluded().size())
                            .append(" address(es) not given to any Service: ")
                            .append(ExcludedAddresses.describe(p.excluded()))
                            .append('\n'));
        }
        report.configProblems()
                .forEach(p -> out.append("configuration error: ").append(p).append('\n'));
        if (!report.configProblems().isEmpty()) {
            out.append(
                    "The objects above are refused; the pools listed are the valid ones. An object the controller had\n"
                            + "accepted before it was edited stays in use at that version until it is fixed.\n");
        }
        if (!report.conflicts().isEmpty()) {
            out.append("Address conflicts: ")
                    .append(String.join("; ", report.conflicts()))
                    .append('\n');
        }
        if (!report.configurationNotRead().isEmpty()) {
            out.append("configuration not read: ")
                    .append(report.configurationNotRead())
                    .append('\n');
        }
        out.append('\n');
        if (report.services().isEmpty()) {
            out.append("No LoadBalancer Services.\n");
        } else {
            Table services = new Table("NAMESPACE", "NAME", "EXTERNAL-IP", "POOL", "NODE", "STATE", "REASON");
            report.services()
                    .forEach(s -> services.row(
                            s.namespace(),
                            s.name(),
                            s.ips().isEmpty() ? "<pending>" : String.join(",", s.ips()),
                            dash(s.pool()),
                            s.nodes().isEmpty() ? "-" : String.join(",", s.nodes()),
                            s.state().name(),
                            dash(s.reason())));
            out.append(services);
            speakers(report, out);
        }
        bgp(report, out);
        controller(report.controller(), out);
        return out.toString();
    }

    /** Which replica leads; the claims only when they could be counted. */
    private static void controller(StatusReport.ControllerRow c, StringBuilder out) {
        out.append("\nController leader: ")
                .append(c.leader().isEmpty() ? "none (" + c.lease() + ")" : c.leader() + " (" + c.lease() + ")")
                .append('\n');
        c.claims()
                .ifPresent(n -> out.append("Address claims: ")
                        .append(n)
                        .append(" IPAddressClaim(s); ")
                        .append(c.addresses())
                        .append(" address(es) in Services' status\n"));
    }

    /** Each speaker and what its failure detector hears: a peer "not-heard" is judged by the API alone. */
    private static void speakers(StatusReport report, StringBuilder out) {
        if (report.speakers().isEmpty()) {
            return;
        }
        out.append('\n');
        Table speakers = new Table("SPEAKER ON", "POD READY", "FAILURE DETECTOR", "PEERS");
        report.speakers()
                .forEach(s -> speakers.row(
                        s.node(),
                        String.valueOf(s.podReady()),
                        s.detector(),
                        s.peers().isEmpty()
                                ? "-"
                                : s.peers().entrySet().stream()
                                        .map(e -> e.getKey() + " " + e.getValue())
                                        .reduce((a, b) -> a + ", " + b)
                                        .orElse("-")));
        out.append(speakers);
    }

    /** The BGPPeers, and each node's session with each, as its BGPSessionState says; nothing without BGP. */
    private static void bgp(StatusReport report, StringBuilder out) {
        if (!report.bgpPeers().isEmpty()) {
            out.append("\nBGP peers: ")
                    .append(String.join(", ", report.bgpPeers()))
                    .append('\n');
        }
        if (!report.bgpSessions().isEmpty()) {
            out.append('\n');
            // the column of families taken off a session appears only while some session has one
            int columns =
                    report.bgpSessions().stream().anyMatch(s -> !s.disabled().isEmpty()) ? 5 : 4;
            Table sessions = new Table(Arrays.copyOf(
                    new String[] {"BGP SESSION ON", "PEER", "STATE", "BFD", "FAMILIES DISABLED"}, columns));
            report.bgpSessions()
                    .forEach(s -> sessions.row(Arrays.copyOf(
                            new String[] {
                                s.node(), s.peer(), dash(s.bgp()), dash(s.bfd()), dash(String.join(", ", s.disabled()))
                            },
                            columns)));
            out.append(sessions);
        }
    }

    public static String detail(StatusReport.ServiceDetail d) {
        var s = d.service();
        StringBuilder out = new StringBuilder();
        line(out, "Name", s.name());
        line(out, "Namespace", s.namespace());
        line(out, "Type", d.type());
        line(out, "LoadBalancerClass", d.loadBalancerClass().isEmpty() ? "<none>" : d.loadBalancerClass());
        line(out, "External IPs", s.ips().isEmpty() ? "<pending>" : String.join(", ", s.ips()));
        line(
                out,
                "Pool",
                d.pool()
                        .map(p -> p.name() + " (" + String.join(",", p.addresses()) + "; " + p.used() + " used, "
                                + p.free() + " free)")
                        .orElse(s.pool().isEmpty() ? "<none>" : s.pool() + " (not in the configuration)"));
        line(out, "State", s.state().name() + (s.reason().isEmpty() ? "" : ": " + s.reason()));
        out.append("Announced by:");
        if (d.announcements().isEmpty()) {
            out.append(" <none>\n");
        } else {
            out.append('\n');
            d.announcements().forEach(a -> holder(out, a.node(), "on", a.interfaces(), "servicel2status", a.object()));
        }
        if (!d.advertised().isEmpty()) {
            out.append("Advertised over BGP by:\n");
            d.advertised().forEach(a -> holder(out, a.node(), "to", a.peers(), "servicebgpstatus", a.object()));
        }
        out.append("Events:");
        if (d.events().isEmpty()) {
            out.append(" <none>\n");
        } else {
            out.append('\n');
            Table events = new Table("TIME", "TYPE", "REASON", "FROM", "MESSAGE");
            d.events()
                    .forEach(e -> events.row(
                            dash(e.time()), dash(e.type()), dash(e.reason()), dash(e.source()), dash(e.message())));
            events.toString().lines().forEach(l -> out.append("  ").append(l).append('\n'));
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String key, String value) {
        out.append(String.format("%-19s%s%n", key + ":", value));
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    static String lines(List<String> lines) {
        return String.join("\n", lines);
    }

    /** A node that announces the Service: where (interfaces) or to whom (peers), and the status object it wrote. */
    private static void holder(
            StringBuilder out, String node, String preposition, List<String> targets, String kind, String object) {
        out.append("  ")
                .append(node)
                .append(' ')
                .append(preposition)
                .append(' ')
                .append(targets.isEmpty() ? "-" : String.join(", ", targets))
                .append(" (")
                .append(kind)
                .append(' ')
                .append(object)
                .append(")\n");
    }
}

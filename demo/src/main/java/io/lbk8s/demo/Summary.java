package io.lbk8s.demo;

import java.util.List;

/** The table the demo ends with: one row per IP family, every figure measured by the client or the API. */
final class Summary {
    private Summary() {}

    static TextTable table(List<FamilyResult> results) {
        TextTable table = TextTable.of(
                "FAMILY",
                "SERVICE",
                "ADDRESS",
                "ASSIGNED IN",
                "ARP/NDP ANSWER",
                "CURL",
                "LEADER FAILED: MOVED TO",
                "SWITCH-OVER",
                "FAILED REQUESTS",
                "LONGEST GAP");
        for (FamilyResult r : results) {
            Handover h = r.handover();
            table = table.row(
                    r.family(),
                    r.service(),
                    r.address(),
                    Format.duration(r.assignedIn()),
                    r.leader() + " " + r.leaderMac(),
                    r.curlNode(),
                    h.newNode(),
                    Format.duration(h.switchOver()),
                    h.failed() + " of " + h.requests(),
                    Format.duration(h.longestSilence()));
        }
        return table;
    }

    /** What the columns mean, so that no figure is read as more than it is. */
    static List<String> legend(List<FamilyResult> results) {
        return legend(results, "the leader's link down", "its speaker stopped");
    }

    /** With what failed for each family, as the walkthrough did it. */
    static List<String> legend(List<FamilyResult> results, String ipv4Failure, String ipv6Failure) {
        String period = results.stream()
                .map(r -> Format.duration(r.handover().loopPeriod()))
                .distinct()
                .reduce((a, b) -> a + " / " + b)
                .orElse("?");
        return List.of(
                "ASSIGNED IN      from creating the Service to its address in status.loadBalancer (polled every 20 ms)",
                "SWITCH-OVER      from the failure (IPv4: " + ipv4Failure + "; IPv6: " + ipv6Failure
                        + ") to the client's first",
                "                 answer from another node",
                "FAILED REQUESTS  the client's requests in between that got no answer",
                "LONGEST GAP      the longest time the client went without an answer around the switch, its outage",
                "                 (it sent a request every " + period
                        + " when all was well, which bounds the precision)");
    }
}

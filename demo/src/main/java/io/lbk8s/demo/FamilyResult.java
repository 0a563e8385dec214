package io.lbk8s.demo;

import java.time.Duration;

/**
 * What the demo measured for one IP family, for the summary.
 *
 * @param family     IPv4 or IPv6
 * @param service    the Service's name
 * @param address    the address it got
 * @param assignedIn from creating the Service to seeing the address in its status
 * @param leader     the node whose MAC answered ARP/NDP for it
 * @param leaderMac  that MAC
 * @param curlNode   the node that answered curl
 * @param handover   what the client saw when the leader's speaker stopped
 */
record FamilyResult(
        String family,
        String service,
        String address,
        Duration assignedIn,
        String leader,
        String leaderMac,
        String curlNode,
        Handover handover) {}

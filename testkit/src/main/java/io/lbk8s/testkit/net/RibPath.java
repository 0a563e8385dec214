package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.List;
import java.util.OptionalLong;

/**
 * One path to a prefix in a router's BGP table (Adj-RIB-In after policy, Loc-RIB), as its CLI reports it.
 *
 * @param prefix      {@code 198.18.7.200/32}
 * @param nextHop     where the router sends the traffic: the announcing node's address
 * @param best        the router chose this path (with ECMP, other paths to the prefix may be used too)
 * @param localPref   LOCAL_PREF, when the path carries one (iBGP) or the router shows its default
 * @param communities standard communities as {@code 64500:100}, in the order the router lists them
 */
public record RibPath(
        String prefix, InetAddress nextHop, boolean best, OptionalLong localPref, List<String> communities) {

    public RibPath {
        communities = List.copyOf(communities);
    }

    @Override
    public String toString() {
        return prefix + " via " + Addressing.text(nextHop) + (best ? " best" : "")
                + (localPref.isPresent() ? " localpref " + localPref.getAsLong() : "")
                + (communities.isEmpty() ? "" : " communities " + communities);
    }
}

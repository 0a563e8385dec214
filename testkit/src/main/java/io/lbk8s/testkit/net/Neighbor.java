package io.lbk8s.testkit.net;

/**
 * A neighbor (ARP/NDP cache) entry as {@code ip neigh show} prints it.
 *
 * @param mac   lower-case link-layer address; empty for an entry without one (INCOMPLETE, FAILED)
 * @param state REACHABLE, STALE, DELAY, PROBE, PERMANENT, NOARP, INCOMPLETE, FAILED, ...
 */
public record Neighbor(String mac, String state) {

    public boolean hasMac() {
        return !mac.isEmpty();
    }
}

package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A real BGP implementation (FRR, BIRD or GoBGP) running in a namespace of a {@link TestNetwork}: as the upstream
 * router ({@link UpstreamRouter#start}) or, in testkit's own tests, as a stand-in speaker on a node. Every query runs the
 * implementation's own CLI and reads its output, so a test sees what an operator of that router would see.
 */
public sealed interface BgpRouter extends AutoCloseable permits FrrRouter, BirdRouter, GobgpRouter {

    RouterKind kind();

    String namespace();

    RouterConfig config();

    /** Every session the router knows, configured or (for a range) connected. */
    List<RouterSession> sessions();

    /** Every path to {@code prefix} (e.g. {@code 198.18.7.200/32}) in its BGP table; empty when it has none. */
    List<RibPath> routes(String prefix);

    /** Its BFD sessions; empty when none is configured. */
    List<RouterBfdPeer> bfdPeers();

    /** Where its daemons log. */
    List<java.nio.file.Path> logs();

    /** Stops its daemons and removes what they left (the routes they installed too); idempotent. */
    @Override
    void close();

    boolean isClosed();

    default Optional<RouterSession> session(InetAddress neighbor) {
        return sessions().stream().filter(s -> s.neighbor().equals(neighbor)).findFirst();
    }

    /** Waits until the session with {@code neighbor} is Established, and returns it. */
    default RouterSession awaitEstablished(InetAddress neighbor, Duration timeout) {
        return Poll.until(
                        kind() + " session with " + Addressing.text(neighbor) + " Established",
                        () -> session(neighbor),
                        s -> s.map(RouterSession::established).orElse(false),
                        timeout)
                .orElseThrow();
    }

    /** Waits until the paths to {@code prefix} satisfy {@code condition} (e.g. two of them, or none), returns them. */
    default List<RibPath> awaitRoutes(
            String prefix, Predicate<List<RibPath>> condition, String what, Duration timeout) {
        return Poll.until(kind() + " routes to " + prefix + " " + what, () -> routes(prefix), condition, timeout);
    }

    /** Next hops of the paths to {@code prefix}, in the router's order. */
    default List<InetAddress> nextHops(String prefix) {
        return routes(prefix).stream().map(RibPath::nextHop).distinct().toList();
    }
}

package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * What BIRD's {@code show protocols all} says of one BGP neighbour's graceful restart (RFC 4724). BIRD 2.0 marks no
 * single route as stale: while {@code active}, every path the neighbour announced is kept (and forwarded) until the
 * neighbour's End-of-RIB or its restart time.
 *
 * @param protocol           BIRD's name for the session, e.g. {@code peer_2}
 * @param neighbor           the neighbour's address
 * @param active             BIRD keeps the neighbour's paths as stale ({@code Neighbor graceful restart active})
 * @param restartState       the Restart State bit of the neighbour's OPEN ({@code Restart recovery}); empty while the
 *                           session is down or when the neighbour did not offer graceful restart
 * @param preservedFamilies  the families whose forwarding the neighbour said it preserved (F bit, {@code AF preserved})
 */
public record BirdGracefulRestart(
        String protocol,
        InetAddress neighbor,
        boolean active,
        Optional<Boolean> restartState,
        List<String> preservedFamilies) {

    public BirdGracefulRestart {
        preservedFamilies = List.copyOf(preservedFamilies);
    }
}

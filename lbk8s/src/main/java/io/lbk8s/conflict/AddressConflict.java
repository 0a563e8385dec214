package io.lbk8s.conflict;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.ServiceKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Another host on the node network answers for a pool address: what a speaker saw, as the AddressConflict object of
 * that address records it. Pure.
 *
 * @param mac       the other host's MAC, as it answered ("aa:bb:cc:dd:ee:ff")
 * @param node      the node whose speaker saw it
 * @param service   the Service that held the address then, if any
 * @param lastSeen  when the speaker last saw the other host answer; refreshed at most every {@link #REFRESH}
 * @param version   the object's resourceVersion; empty for one not yet written
 */
public record AddressConflict(
        IpAddress address,
        String mac,
        String node,
        Phase phase,
        Optional<ServiceKey> service,
        Instant firstSeen,
        Instant lastSeen,
        String version) {

    /** How often a speaker refreshes lastSeen while the other host stays. */
    public static final Duration REFRESH = Duration.ofSeconds(30);
    /** A conflict not refreshed for this long is stale: the speaker that saw it is gone, and it no longer counts. */
    public static final Duration STALE_AFTER = Duration.ofMinutes(2);

    public enum Phase {
        /** The other host answered lbk8s's probe: the address was never reachable through lbk8s on that node. */
        Probe,
        /** The other host appeared while lbk8s announced the address. */
        Announced
    }

    public AddressConflict {
        if (lastSeen.isBefore(firstSeen)) {
            throw new IllegalArgumentException("lastSeen " + lastSeen + " is before firstSeen " + firstSeen);
        }
    }

    /** Whether the conflict still counts at {@code now}: refreshed within {@link #STALE_AFTER}. */
    public boolean liveAt(Instant now) {
        return Duration.between(lastSeen, now).compareTo(STALE_AFTER) < 0;
    }

    /** The same conflict seen again at {@code now}, by {@code mac}. */
    public AddressConflict seenAgain(String mac, Instant now) {
        return new AddressConflict(address, mac, node, phase, service, firstSeen, now, version);
    }
}

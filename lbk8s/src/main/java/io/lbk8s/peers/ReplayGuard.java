package io.lbk8s.peers;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Tells a live message from a recorded one sent again. Within one incarnation of a sender, sequence numbers must
 * increase; a new incarnation must be newer than the last one seen; and every message must have been sent within
 * {@code window} of our clock, which bounds a replay to a receiver that has just started (and so remembers nothing)
 * to that window. The price is that speakers' clocks must agree within the window (NTP does far better).
 */
public final class ReplayGuard {

    private record Last(long incarnation, long sequence, long sentAtMillis) {}

    private final long windowMillis;
    private final Map<String, Last> last = new HashMap<>();

    public ReplayGuard(long windowMillis) {
        this.windowMillis = windowMillis;
    }

    /** Empty when the message is live (and remembered as the newest of its sender), else why not. */
    public Optional<PeerCodec.Drop> check(PeerMessage message, long nowMillis) {
        if (Math.abs(message.sentAtMillis() - nowMillis) > windowMillis) {
            return Optional.of(PeerCodec.Drop.STALE);
        }
        Last seen = last.get(message.node());
        if (seen != null) {
            boolean live = seen.incarnation() == message.incarnation()
                    ? message.sequence() > seen.sequence()
                    : message.sentAtMillis() > seen.sentAtMillis();
            if (!live) {
                return Optional.of(PeerCodec.Drop.REPLAYED);
            }
        }
        last.put(message.node(), new Last(message.incarnation(), message.sequence(), message.sentAtMillis()));
        return Optional.empty();
    }

    /** Forgets a node that is no longer a peer. */
    public void forget(String node) {
        last.remove(node);
    }
}

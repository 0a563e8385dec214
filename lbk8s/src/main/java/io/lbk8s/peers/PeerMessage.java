package io.lbk8s.peers;

import java.util.List;

/**
 * One datagram between speakers: a heartbeat, sent to every peer each interval, or the notice that a speaker is
 * leaving (a graceful stop), so that its peers take over at once instead of waiting out the detection time.
 *
 * @param node         the sender's node name
 * @param incarnation  random at each start of the sender, so a restart is told apart from a late packet
 * @param sequence     increases with every message of one incarnation: an older or repeated one is a replay
 * @param sentAtMillis the sender's wall clock; bounds how long a recorded message could be replayed
 * @param ready        the sender may announce addresses (not starting, resuming or held back by its peers)
 * @param isolated     the sender hears none of the peers it heard before: its view of the others is not to be
 *                     trusted, and it is not a candidate for the others
 * @param reports      what the sender thinks of each peer it has heard, by {@link PeerId}
 */
public record PeerMessage(
        Kind kind,
        String node,
        long incarnation,
        long sequence,
        long sentAtMillis,
        boolean ready,
        boolean isolated,
        List<Report> reports) {

    public enum Kind {
        HEARTBEAT,
        LEAVING
    }

    /** A speaker's judgement of one peer, as it reports it to the others. */
    public enum Opinion {
        /** Heard within the detection time, and not held back any more. */
        OK,
        /** Heard again after a failure, but held back for a while so that a flapping node does not pull addresses back. */
        HELD,
        /** Not heard for longer than the detection time, or it left. */
        SILENT
    }

    public record Report(long peer, Opinion opinion) {}

    public PeerMessage {
        reports = List.copyOf(reports);
    }
}

package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.nio.ByteBuffer;

/** The one sentence a session's status shows for why it went down. */
public final class LastError {
    private LastError() {}

    /** For example "peer 10.0.0.1 sent NOTIFICATION OPEN Message Error / Bad Peer AS: it expects ..., we said ...". */
    public static String of(IpAddress peer, long myAsn, SessionAction.Failed failed) {
        return failed.received()
                .map(n -> "peer " + peer + " sent NOTIFICATION " + n.describe() + detail(n, myAsn))
                .orElse("peer " + peer + " " + failed.whatThePeerDid());
    }

    private static String detail(Message.Notification n, long myAsn) {
        byte[] data = n.data().bytes();
        if (n.shutdownCommunication().isPresent()) {
            return ": \"" + n.shutdownCommunication().get() + "\"";
        }
        if (n.code() == 2 && n.subcode() == 2) {
            // BIRD puts the AS it refused in the data (captured: 0000fdeb); the AS it expects is in its config only
            long refused = switch (data.length) {
                case 2 -> ByteBuffer.wrap(data).getShort() & 0xFFFF;
                case 4 -> ByteBuffer.wrap(data).getInt() & 0xFFFF_FFFFL;
                default -> myAsn;
            };
            return refused == myAsn
                    ? ": it does not accept our AS " + myAsn
                            + " (compare the AS the router expects for this node with the BGPPeer's myASN)"
                    : ": it refuses AS " + refused + ", we said AS " + myAsn;
        }
        if (n.code() == 2 && n.subcode() == 6) {
            return ": it does not accept our hold time";
        }
        return data.length == 0 ? "" : " (data " + n.data() + ")";
    }
}

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
            // FRR, BIRD and GoBGP put the AS they refused in the data, which is ours unless a router rewrote it
            String said = "we said AS " + myAsn;
            return switch (data.length) {
                case 2 -> ": it refuses AS " + (ByteBuffer.wrap(data).getShort() & 0xFFFF) + ", " + said;
                case 4 -> ": it refuses AS " + (ByteBuffer.wrap(data).getInt() & 0xFFFF_FFFFL) + ", " + said;
                default -> ": it expects another AS than ours, " + said;
            };
        }
        if (n.code() == 2 && n.subcode() == 6) {
            return ": it does not accept our hold time";
        }
        return data.length == 0 ? "" : " (data " + n.data() + ")";
    }
}

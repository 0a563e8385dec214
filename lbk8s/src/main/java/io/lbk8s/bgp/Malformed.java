package io.lbk8s.bgp;

/** Thrown inside the decoders only, so that each check is one line; {@link MessageDecoder} turns it into a value. */
final class Malformed extends Exception {
    final Message.Notification notification;

    Malformed(int code, int subcode, Octets data, String reason) {
        super(reason, null, false, false);
        this.notification = new Message.Notification(code, subcode, data);
    }

    Malformed(int code, int subcode, String reason) {
        this(code, subcode, Octets.EMPTY, reason);
    }
}

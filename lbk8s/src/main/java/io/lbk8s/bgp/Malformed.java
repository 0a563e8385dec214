package io.lbk8s.bgp;

import java.util.Optional;

/** Thrown inside the decoders only, so that each check is one line; {@link MessageDecoder} turns it into a value. */
final class Malformed extends Exception {
    final Message.Notification notification;
    /** See {@link Decoded.Invalid#family()}. */
    final Optional<Family> family;

    private Malformed(Message.Notification notification, String reason, Optional<Family> family) {
        super(reason, null, false, false);
        this.notification = notification;
        this.family = family;
    }

    Malformed(int code, int subcode, Octets data, String reason) {
        this(new Message.Notification(code, subcode, data), reason, Optional.empty());
    }

    /** The same error, found in {@code attribute} (MP_REACH_NLRI or MP_UNREACH_NLRI) of {@code family}. */
    Malformed in(Family family, String attribute) {
        return new Malformed(
                notification,
                "an UPDATE whose " + family.describe() + " " + attribute + " cannot be parsed: " + getMessage(),
                Optional.of(family));
    }

    Malformed(int code, int subcode, String reason) {
        this(code, subcode, Octets.EMPTY, reason);
    }
}

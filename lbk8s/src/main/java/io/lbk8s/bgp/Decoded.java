package io.lbk8s.bgp;

/** What decoding one received message gave: the message, or the NOTIFICATION RFC 4271 6 says to answer with. */
public sealed interface Decoded {

    record Valid(Message message) implements Decoded {}

    /** @param reason what was wrong, as a sentence for the session's last error */
    record Invalid(Message.Notification notification, String reason) implements Decoded {}
}

package io.lbk8s.bgp;

import java.util.Optional;

/**
 * What decoding one received message gave: the message, the UPDATE as RFC 7606 reads a malformed one, or the
 * NOTIFICATION RFC 4271 6 says to answer with.
 */
public sealed interface Decoded {

    record Valid(Message message) implements Decoded {}

    /**
     * An UPDATE with an error that RFC 7606 handles without ending the session: {@code update} is what it amounts to,
     * its routes treated as withdrawn ("treat-as-withdraw") or a bad optional attribute left out ("attribute
     * discard").
     *
     * @param reason what was wrong and what was done, as a sentence for the log
     */
    record Revised(Message.Update update, String reason) implements Decoded {}

    /**
     * @param reason what was wrong, as a sentence for the session's last error
     * @param family the AFI/SAFI of the MP_REACH_NLRI or MP_UNREACH_NLRI that could not be parsed, when that much of
     *               it could be read: {@link AfiSafiDisable} may then keep the session without that family
     */
    record Invalid(Message.Notification notification, String reason, Optional<Family> family) implements Decoded {}
}

package io.lbk8s.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.lbk8s.text.Quoted;

/**
 * {@code %oneLineMessage}: the formatted message, escaped to fit between the double quotes of {@code msg="..."}.
 * Messages quote the user text they carry already; this is the second line of defence, for the message that forgot
 * (or an exception's message from a library): no record can start a second, forged line, and {@code msg} stays one
 * logfmt value that a log parser reads correctly.
 */
public final class OneLineMessage extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        return Quoted.escape(event.getFormattedMessage());
    }
}

package io.lbk8s.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.lbk8s.text.Quoted;

/**
 * {@code %oneLineException}: a record's exception with its stack trace as one escaped value,
 * {@code  exception="java.lang.IllegalStateException: ...\n\tat ..."}, or nothing without an exception. A stack
 * trace on lines of its own would let an exception's message (often the API server's words, which quote user
 * input) start a line that looks like a record of its own.
 */
public final class OneLineException extends ThrowableProxyConverter {
    @Override
    public String convert(ILoggingEvent event) {
        String trace = super.convert(event);
        if (trace.isEmpty()) {
            return "";
        }
        return " exception=\"" + Quoted.escape(trace.stripTrailing()) + "\"";
    }
}

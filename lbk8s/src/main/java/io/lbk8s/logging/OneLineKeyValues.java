package io.lbk8s.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.lbk8s.text.Quoted;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.event.KeyValuePair;

/**
 * {@code %oneLineKeyValues}: the SLF4J key-value pairs of a record as {@code  key="value"}, each after a space and
 * escaped as the message is (logback's own {@code %kvp} writes values as they are, newlines included); nothing
 * without pairs.
 */
public final class OneLineKeyValues extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        if (pairs == null || pairs.isEmpty()) {
            return "";
        }
        return pairs.stream()
                .map(pair -> Quoted.escape(pair.key) + "=\"" + Quoted.escape(String.valueOf(pair.value)) + "\"")
                .collect(Collectors.joining(" ", " ", ""));
    }
}

package io.lbk8s.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.KeyValuePair;

/** The roles' text log format: one line per record, whatever the record holds. */
class LogLineTest {
    private static final String FORGED =
            "\n2026-12-03T00:00:00Z level=INFO logger=Controller msg=\"configuration valid: 7 pool(s)\"";

    static Stream<Arguments> messages() {
        return Stream.of(
                Arguments.of("plain", "configuration valid: 1 pool(s)", "msg=\"configuration valid: 1 pool(s)\""),
                Arguments.of(
                        "a forged record after a newline",
                        "default/web: no address: requested pool a" + FORGED,
                        "msg=\"default/web: no address: requested pool a\\n2026-12-03T00:00:00Z level=INFO"
                                + " logger=Controller msg=\\\"configuration valid: 7 pool(s)\\\"\""),
                Arguments.of("carriage return", "ok\rlevel=INFO fake", "msg=\"ok\\rlevel=INFO fake\""),
                Arguments.of("ANSI colour", "\u001b[31mred", "msg=\"\\u001b[31mred\""),
                Arguments.of(
                        "a message quoting user text keeps its quotes, escaped once more for logfmt",
                        "requested pool \"a\\nb\" does not exist",
                        "msg=\"requested pool \\\"a\\\\nb\\\" does not exist\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void messages(String what, String message, String expected) {
        String line = render(event(message));
        assertThat(line).endsWith(expected + System.lineSeparator());
        assertOneLine(line);
    }

    @Test
    void stackTraceStaysOnTheLineOfItsRecord() {
        LoggingEvent event = event("reconcile failed");
        event.setThrowableProxy(new ThrowableProxy(new IllegalStateException("boom" + FORGED)));
        String line = render(event);
        assertOneLine(line);
        assertThat(line)
                .contains("msg=\"reconcile failed\" exception=\"java.lang.IllegalStateException: boom\\n2026-12-03")
                .contains("\\n\\tat io.lbk8s.logging.LogLineTest.");
    }

    @Test
    void keyValuePairsAreEscapedToo() {
        LoggingEvent event = event("assigned");
        event.setKeyValuePairs(List.of(new KeyValuePair("pool", "a" + FORGED)));
        String line = render(event);
        assertOneLine(line);
        assertThat(line)
                .contains("logger=Controller pool=\"a\\n2026-12-03T00:00:00Z level=INFO logger=Controller msg=\\\"");
    }

    @Test
    void withoutKeyValuePairsOneSpaceSeparatesLoggerAndMessage() {
        assertThat(render(event("hello"))).contains(" level=INFO  logger=Controller msg=\"hello\"");
    }

    private static void assertOneLine(String line) {
        assertThat(line.stripTrailing())
                .doesNotContain("\n")
                .doesNotContain("\r")
                .doesNotContain("\u001b");
    }

    static LoggingEvent event(String message) {
        LoggingEvent event = new LoggingEvent();
        event.setLoggerName("io.lbk8s.controller.Controller");
        event.setLevel(Level.INFO);
        event.setMessage(message);
        event.setTimeStamp(0);
        event.setThreadName("test");
        return event;
    }

    /** The record as the roles' console appender writes it (LogSetup's text format). */
    private static String render(LoggingEvent event) {
        return render(event, false);
    }

    /** The record as the roles' console appender writes it, in the text or the JSON format. */
    @SuppressWarnings("unchecked")
    static String render(LoggingEvent event, boolean json) {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // the JSON encoder reads the MDC, as a started context has
        LogSetup.apply(context, json, null);
        var appender = (OutputStreamAppender<ILoggingEvent>)
                context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("OUT");
        event.setLoggerContext(context);
        String line = new String(appender.getEncoder().encode(event), StandardCharsets.UTF_8);
        context.stop();
        return line;
    }
}

package io.lbk8s.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** LOG_FORMAT and LOG_LEVEL as the roles read them; the text format's escaping is LogLineTest's. */
class LogSetupTest {
    @ParameterizedTest(name = "LOG_LEVEL={0} -> {1}")
    @CsvSource(
            value = {"null, INFO", "debug, DEBUG", "WARN, WARN", "error, ERROR", "loud, INFO"},
            nullValues = "null")
    void rootLevel(String logLevel, String expected) {
        LoggerContext context = new LoggerContext();
        LogSetup.apply(context, false, logLevel);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.toLevel(expected));
    }

    @Test
    void fabric8IsQuietUnlessItWarns() {
        LoggerContext context = new LoggerContext();
        LogSetup.apply(context, false, "debug");
        assertThat(context.getLogger("io.fabric8.kubernetes.client.informers").isInfoEnabled())
                .isFalse();
        assertThat(context.getLogger("io.fabric8.kubernetes.client.informers").isWarnEnabled())
                .isTrue();
        assertThat(context.getLogger("io.lbk8s.speaker.Speaker").isDebugEnabled())
                .isTrue();
    }

    @Test
    void jsonFormatWritesOneObjectPerLine() {
        String line = render(true, "default/web: no address\nforged");
        assertThat(line).startsWith("{").endsWith("}" + System.lineSeparator());
        assertThat(line.stripTrailing()).doesNotContain("\n");
        assertThat(line)
                .contains("\"level\":\"INFO\"")
                .contains("\"loggerName\":\"io.lbk8s.controller.Controller\"")
                .contains("\"message\":\"default\\/web: no address\\nforged\"");
    }

    @Test
    void textFormatIsTheDefault() {
        assertThat(render(false, "hello")).contains(" level=INFO  logger=Controller msg=\"hello\"");
    }

    @SuppressWarnings("unchecked")
    private static String render(boolean json, String message) {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // the JSON encoder reads the MDC, as a started context has
        LogSetup.apply(context, json, null);
        LoggingEvent event = new LoggingEvent();
        event.setLoggerName("io.lbk8s.controller.Controller");
        event.setLevel(Level.INFO);
        event.setMessage(message);
        event.setTimeStamp(0);
        event.setThreadName("test");
        event.setLoggerContext(context);
        var appender = (OutputStreamAppender<ILoggingEvent>)
                context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("OUT");
        String line = new String(appender.getEncoder().encode(event), StandardCharsets.UTF_8);
        context.stop();
        return line;
    }
}

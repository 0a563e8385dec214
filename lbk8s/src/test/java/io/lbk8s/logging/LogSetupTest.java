package io.lbk8s.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
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

    private static String render(boolean json, String message) {
        return LogLineTest.render(LogLineTest.event(message), json);
    }
}

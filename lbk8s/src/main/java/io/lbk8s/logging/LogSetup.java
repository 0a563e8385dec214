package io.lbk8s.logging;

import ch.qos.logback.classic.ClassicConstants;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Every role's logging, set up in code (found by logback through {@code META-INF/services}) rather than read from a
 * logback.xml: parsing XML loads logback's Joran and the JDK's XML parser, about 400 classes that would stay in
 * every speaker's memory for one use at start. {@code LOG_FORMAT=json} gives one JSON object per line, {@code
 * LOG_LEVEL} the root level (default INFO); an operator's own file, {@code -Dlogback.configurationFile=FILE}, is
 * still read instead.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    /** One line per record, whatever it holds: message, key-value pairs and stack trace are escaped. */
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} level=%-5level logger=%logger{0}"
            + "%oneLineKeyValues msg=\"%oneLineMessage\"%oneLineException%n";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty(ClassicConstants.CONFIG_FILE_PROPERTY) != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        apply(context, "json".equalsIgnoreCase(System.getenv("LOG_FORMAT")), System.getenv("LOG_LEVEL"));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The console appender "OUT" on the root logger, in the format chosen, and the quiet fabric8 loggers. */
    static void apply(LoggerContext context, boolean json, String level) {
        ConsoleAppender<ILoggingEvent> out = new ConsoleAppender<>();
        out.setContext(context);
        out.setName("OUT");
        out.setEncoder(json ? jsonEncoder(context) : textEncoder(context));
        out.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(level, Level.INFO));
        root.addAppender(out);
        context.getLogger("io.fabric8").setLevel(Level.WARN);
        // metallb.io/v1beta1 is what MetalLB serves; fabric8 warning about beta versions on every use is noise.
        context.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils")
                .setLevel(Level.ERROR);
        // An informer's failed list or watch: Watches says so in one line (and, when the first list fails, the code
        // that asked for it), so fabric8's own line with a stack trace beside it (ERROR on a refused list) is noise.
        context.getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector")
                .setLevel(Level.OFF);
    }

    private static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.getInstanceConverterMap().put("oneLineKeyValues", OneLineKeyValues::new);
        layout.getInstanceConverterMap().put("oneLineMessage", OneLineMessage::new);
        layout.getInstanceConverterMap().put("oneLineException", OneLineException::new);
        layout.setPattern(TEXT_PATTERN);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }

    private static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        encoder.start();
        return encoder;
    }
}

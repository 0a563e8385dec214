package io.lbk8s.install;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Go-style durations on the command line: 90s, 3m, 1m30s, 500ms. */
public final class Durations {
    private Durations() {}

    public static Duration parse(String option, String text) {
        try {
            Duration d = text.toLowerCase().endsWith("ms")
                    ? Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)))
                    : Duration.parse("PT" + text.toUpperCase());
            if (d.isNegative()) {
                throw new InstallProblem(option + " must not be negative");
            }
            return d;
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new InstallProblem(option + ": \"" + text + "\" is not a duration like 90s, 3m or 500ms");
        }
    }
}

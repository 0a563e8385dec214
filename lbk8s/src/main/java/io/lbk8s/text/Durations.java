package io.lbk8s.text;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one reading of a duration a user writes (every duration flag of every command): Go's notation, which kubectl
 * and MetalLB use too. A number and a unit, {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or several of them
 * ({@code 1m30s}), a number may have a fraction ({@code 1.5s}); {@code 0} alone is zero, which some options read as
 * "off". Whether a duration suits the option (zero, the longest sensible) is the caller's to judge.
 */
public final class Durations {
    private Durations() {}

    private static final String PART = "(\\d+(?:\\.\\d+)?)(ms|s|m|h)";
    private static final Pattern ONE_PART = Pattern.compile(PART, Pattern.CASE_INSENSITIVE);
    private static final Pattern WHOLE = Pattern.compile("(?:" + PART + ")+", Pattern.CASE_INSENSITIVE);

    /**
     * The duration {@code text} stands for, or an {@link IllegalArgumentException} whose message names the option:
     * {@code --timeout: "soon" is not a duration like 90s, 3m or 500ms}.
     */
    public static Duration parse(String option, String text) {
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        if (text.startsWith("-") && WHOLE.matcher(text.substring(1)).matches()) {
            throw new IllegalArgumentException(option + " must not be negative");
        }
        if (!WHOLE.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    option + ": " + Quoted.of(text) + " is not a duration like 90s, 3m or 500ms");
        }
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher part = ONE_PART.matcher(text);
        while (part.find()) {
            nanos = nanos.add(new BigDecimal(part.group(1)).multiply(BigDecimal.valueOf(nanosPer(part.group(2)))));
        }
        try {
            return Duration.ofNanos(nanos.setScale(0, RoundingMode.DOWN).longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(option + ": " + Quoted.of(text) + " is too long (at most 2562047h)");
        }
    }

    private static long nanosPer(String unit) {
        return switch (unit.toLowerCase(Locale.ROOT)) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> throw new IllegalStateException("unit " + unit + " is in the pattern but not here");
        };
    }
}

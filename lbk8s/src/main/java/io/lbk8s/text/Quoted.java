package io.lbk8s.text;

/**
 * Renders text that someone other than the operator wrote (annotation values, pool names, configuration) so that it
 * can be put into a log line, an Event or a status message without changing what the message says: it cannot end
 * the line (and so forge another log record), recolour a terminal, hide text with bidirectional overrides, or bury
 * the message under megabytes.
 *
 * <p>Anyone allowed to create a Service writes its annotations; without this, a newline in
 * {@code metallb.io/address-pool} started a forged line in the controller's log.
 */
public final class Quoted {

    /**
     * The longest text shown whole: 256 characters cover every Kubernetes name (at most 253) and label value, so
     * only text that is invalid anyway is ever cut.
     */
    public static final int MAX_CHARS = 256;

    private Quoted() {}

    /**
     * The text in double quotes, escaped as in a Java or JSON string literal, and cut after {@link #MAX_CHARS}
     * characters with a note of how many were left out: {@code "aaa…"... (744 more chars)}. {@code null} is
     * {@code null}, without quotes, so that it cannot be mistaken for the string "null".
     */
    public static String of(String text) {
        if (text == null) {
            return "null";
        }
        if (text.length() <= MAX_CHARS) {
            return '"' + escape(text) + '"';
        }
        // Never split a surrogate pair: half of one would be escaped as a lone surrogate.
        int cut = Character.isHighSurrogate(text.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
        return '"' + escape(text.substring(0, cut)) + "\"... (" + (text.length() - cut) + " more chars)";
    }

    /**
     * The text with backslashes, double quotes and every character that is not plain printable text escaped:
     * {@code \n}, {@code \r}, {@code \t} by name and the others as {@code \}{@code uXXXX}. The result is one line of
     * printable characters; it is what goes between the quotes of {@link #of} and of a log record's message.
     */
    public static String escape(String text) {
        StringBuilder out = null; // allocated at the first character that needs escaping: most text needs none
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = replacementOf(text, i);
            if (replacement == null) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            out.append(replacement);
        }
        return out == null ? text : out.toString();
    }

    /** How the character at {@code i} is written, or null when it stands for itself. */
    private static String replacementOf(String text, int i) {
        char c = text.charAt(i);
        return switch (c) {
            case '\\' -> "\\\\";
            case '"' -> "\\\"";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> invisible(text, i) ? String.format("\\u%04x", (int) c) : null;
        };
    }

    /**
     * Control characters (ESC of terminal colour codes, NUL, DEL, the C1 range), format characters (bidirectional
     * overrides, zero-width characters, the invisible "tag" letters), the Unicode line and paragraph separators, and
     * surrogates that are not half of a pair: what a reader cannot see or what changes how the rest of the line is
     * shown. Both halves of a pair are escaped when the character they make is invisible.
     */
    private static boolean invisible(String text, int i) {
        char c = text.charAt(i);
        int codePoint = c;
        if (Character.isHighSurrogate(c)) {
            if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                return true;
            }
            codePoint = text.codePointAt(i);
        } else if (Character.isLowSurrogate(c)) {
            if (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1))) {
                return true;
            }
            codePoint = text.codePointAt(i - 1);
        }
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> true;
            default -> false;
        };
    }
}

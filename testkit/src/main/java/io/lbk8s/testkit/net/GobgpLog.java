package io.lbk8s.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last warning gobgpd logged per neighbor, as {@code sent notification: as number mismatch expected 64513, received
 * 64512}: its API keeps no last error, its log does.
 */
final class GobgpLog {

    /** {@code --log-plain} lines: {@code time="..." level=warning msg="sent notification" Key=198.18.7.11 ...}. */
    private static final Pattern WARNING = Pattern.compile("level=(?:warning|error) msg=\"([^\"]*)\"(.*)$");

    private static final Pattern KEY = Pattern.compile("\\bKey=([0-9a-fA-F:.]+)");

    /** What gobgpd says went wrong: {@code Data="as number mismatch expected 64513, received 64512"}. */
    private static final Pattern DATA = Pattern.compile("\\bData=\"([^\"]*)\"");

    private GobgpLog() {}

    static Map<String, String> lastErrors(List<Path> logs) {
        Map<String, String> errors = new HashMap<>();
        for (Path log : logs) {
            for (String line : lines(log)) {
                Matcher warning = WARNING.matcher(line);
                if (!warning.find()) {
                    continue;
                }
                Matcher key = KEY.matcher(warning.group(2));
                if (key.find()) {
                    errors.put(
                            key.group(1),
                            (warning.group(1) + " " + warning.group(2).replace(key.group(), "")).strip());
                }
            }
        }
        return errors;
    }

    private static List<String> lines(Path log) {
        try {
            return Files.readAllLines(log);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.lbk8s.demo;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One request of the client's loop: when its answer (or failure) came, by the client's wall clock in microseconds,
 * and which node answered.
 */
record Sample(long atMicros, Optional<String> answeredBy) {

    /** What the loop prints: {@code 1730000000.123456 ok node-2} or {@code 1730000000.123456 fail}. */
    private static final Pattern LINE = Pattern.compile("(\\d+)\\.(\\d{6}) (?:ok (\\S+)|fail)");

    static Optional<Sample> parse(String line) {
        Matcher m = LINE.matcher(line.strip());
        if (!m.matches()) {
            return Optional.empty(); // a line cut short by stopping the loop
        }
        long micros = Long.parseLong(m.group(1)) * 1_000_000 + Long.parseLong(m.group(2));
        return Optional.of(new Sample(micros, Optional.ofNullable(m.group(3))));
    }

    boolean answered() {
        return answeredBy.isPresent();
    }

    boolean answeredBy(String node) {
        return answeredBy.filter(node::equals).isPresent();
    }
}

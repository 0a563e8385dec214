package io.lbk8s.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every duration flag reads its value here: what a user may write, and the sentence for what they may not. */
class DurationsTest {

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
        "0,         0",
        "0s,        0",
        "500ms,     500",
        "30ms,      30",
        "30s,       30000",
        "2m,        120000",
        "1h,        3600000",
        "1m30s,     90000",
        "1h2m3s4ms, 3723004",
        "1.5s,      1500",
        "0.25m,     15000",
        "30S,       30000",
        "500MS,     500",
    })
    void readsGoStyleDurations(String text, long millis) {
        assertThat(Durations.parse("--flag", text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest(name = "{index}: {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "soon         | --flag: \"soon\" is not a duration like 90s, 3m or 500ms",
                "30           | --flag: \"30\" is not a duration like 90s, 3m or 500ms",
                "''           | --flag: \"\" is not a duration like 90s, 3m or 500ms",
                "1d           | --flag: \"1d\" is not a duration like 90s, 3m or 500ms",
                "PT30S        | --flag: \"PT30S\" is not a duration like 90s, 3m or 500ms",
                "' 30s'       | --flag: \" 30s\" is not a duration like 90s, 3m or 500ms",
                "1m 30s       | --flag: \"1m 30s\" is not a duration like 90s, 3m or 500ms",
                ".5s          | --flag: \".5s\" is not a duration like 90s, 3m or 500ms",
                "5s\\n        | --flag: \"5s\\n\" is not a duration like 90s, 3m or 500ms",
                "-1s          | --flag must not be negative",
                "-0           | --flag: \"-0\" is not a duration like 90s, 3m or 500ms",
                "9999999999h  | --flag: \"9999999999h\" is too long (at most 2562047h)",
            })
    void refusesAnythingElseWithASentenceNamingTheFlag(String text, String message) {
        String given = text.replace("\\n", "\n");
        assertThatThrownBy(() -> Durations.parse("--flag", given))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}

package io.lbk8s.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QuotedTest {

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of("plain text stands for itself", "pool-a", "\"pool-a\""),
                Arguments.of("empty", "", "\"\""),
                Arguments.of("null is not the string null", null, "null"),
                Arguments.of("quotes and backslashes", "say \"hi\" \\o/", "\"say \\\"hi\\\" \\\\o/\""),
                Arguments.of(
                        "a forged log line stays on this one",
                        "x\n2026-12-03T00:00:00Z level=INFO logger=Controller msg=\"configuration valid: 7 pool(s)\"",
                        "\"x\\n2026-12-03T00:00:00Z level=INFO logger=Controller msg=\\\"configuration valid: 7 pool(s)\\\"\""),
                Arguments.of("carriage return (overwrites the line on a terminal)", "ok\rfake", "\"ok\\rfake\""),
                Arguments.of("tab", "a\tb", "\"a\\tb\""),
                Arguments.of("ANSI colour", "\u001b[31mred\u001b[0m", "\"\\u001b[31mred\\u001b[0m\""),
                Arguments.of("NUL, bell, backspace, DEL", "\u0000\u0007\b\u007f", "\"\\u0000\\u0007\\u0008\\u007f\""),
                Arguments.of("C1 control (CSI)", "\u009b31m", "\"\\u009b31m\""),
                Arguments.of("Unicode line and paragraph separators", "a\u2028b\u2029c", "\"a\\u2028b\\u2029c\""),
                Arguments.of("bidirectional override", "abc\u202edcba", "\"abc\\u202edcba\""),
                Arguments.of("zero-width space", "po\u200bol", "\"po\\u200bol\""),
                Arguments.of("invisible tag letters (a surrogate pair)", "a\udb40\udc41", "\"a\\udb40\\udc41\""),
                Arguments.of("a lone surrogate", "a\ud800b", "\"a\\ud800b\""),
                Arguments.of("printable non-ASCII stands for itself", "pöol-池-🙂", "\"pöol-池-🙂\""),
                Arguments.of("256 characters are shown whole", "a".repeat(256), "\"" + "a".repeat(256) + "\""),
                Arguments.of(
                        "longer text is cut, saying how much",
                        "a".repeat(1000),
                        "\"" + "a".repeat(256) + "\"... (744 more chars)"),
                Arguments.of(
                        "a cut never splits a surrogate pair",
                        "a".repeat(255) + "🙂🙂",
                        "\"" + "a".repeat(255) + "\"... (4 more chars)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void quotes(String what, String text, String expected) {
        assertThat(Quoted.of(text)).isEqualTo(expected);
    }

    @Test
    void anyTextBecomesOneBoundedLineOfPrintableCharacters() {
        StringBuilder every = new StringBuilder();
        for (char c = 0; c < 0x3000; c++) {
            every.append(c);
        }
        String invisible = "[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}]";
        assertThat(Quoted.escape(every.toString())).doesNotContainPattern(invisible);
        String quoted = Quoted.of(every.reverse().toString().repeat(3));
        assertThat(quoted).doesNotContainPattern(invisible);
        assertThat(quoted.length()).isLessThan(Quoted.MAX_CHARS * 6 + 40);
    }

    @Test
    void escapeLeavesPlainTextAsItIs() {
        String plain = "default/web: assigned [10.0.0.1] from pool a";
        assertThat(Quoted.escape(plain)).isSameAs(plain);
    }
}

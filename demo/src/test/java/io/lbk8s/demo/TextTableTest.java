package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TextTableTest {
    @Test
    void alignsColumnsToTheWidestCellWithoutTrailingSpaces() {
        var table = TextTable.of("NAME", "IP", "NOTE")
                .row("whoami", "198.18.7.200", "")
                .row("a", "fd00::1", "x");
        assertThat(table.lines("  "))
                .containsExactly("  NAME    IP            NOTE", "  whoami  198.18.7.200", "  a       fd00::1       x");
    }

    @Test
    void rowsPrintedOneByOneLineUpWhenSizedForTheWidestValueInAdvance() {
        var table = TextTable.of("NAME", "EXTERNAL-IP", "")
                .sizedFor("", "198.18.218.220", "")
                .row("whoami", "<pending>", "(just created)");
        String pending = table.line("", 0);
        String assigned =
                table.row("whoami", "198.18.218.200", "(after 157 ms)").line("", 1);
        assertThat(pending).isEqualTo("whoami  <pending>       (just created)");
        assertThat(assigned.indexOf("(after")).isEqualTo(pending.indexOf("(just"));
    }

    @Test
    void refusesRowsOfTheWrongWidth() {
        assertThatThrownBy(() -> TextTable.of("A", "B").row("only one")).isInstanceOf(IllegalArgumentException.class);
    }
}

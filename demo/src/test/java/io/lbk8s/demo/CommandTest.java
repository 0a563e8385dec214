package io.lbk8s.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CommandTest {
    @Test
    void runByDefault() {
        assertThat(Command.parse()).isEqualTo(new Command.Run(false, false, Optional.empty(), false, false));
        assertThat(Command.parse("--keep", "--plain", "--logs", "/tmp/x"))
                .isEqualTo(new Command.Run(true, true, Optional.of(Path.of("/tmp/x")), false, false));
        assertThat(Command.parse("--bgp", "--plain"))
                .isEqualTo(new Command.Run(false, true, Optional.empty(), true, false));
        assertThat(Command.parse("--kubernetes"))
                .isEqualTo(new Command.Run(false, false, Optional.empty(), false, true));
    }

    @Test
    void cleanHelpAndMistakes() {
        assertThat(Command.parse("--clean")).isEqualTo(new Command.Clean());
        assertThat(Command.parse("--plain", "--help")).isEqualTo(new Command.Help());
        assertThat(Command.parse("--clean", "--keep")).isInstanceOf(Command.Invalid.class);
        assertThat(Command.parse("--clean", "--bgp")).isInstanceOf(Command.Invalid.class);
        assertThat(Command.parse("--clean", "--kubernetes")).isInstanceOf(Command.Invalid.class);
        assertThat(Command.parse("--bgp", "--kubernetes")).isInstanceOf(Command.Invalid.class);
        assertThat(Command.parse("--logs")).isEqualTo(new Command.Invalid("--logs needs a directory"));
        assertThat(Command.parse("--kep")).isEqualTo(new Command.Invalid("unknown argument --kep"));
    }
}

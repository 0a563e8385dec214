package io.lbk8s.cli;

import io.lbk8s.text.Durations;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** A duration flag of a long-running role, refused like any bad flag (exit code 2, the sentence) before it starts. */
final class DurationFlags {
    private DurationFlags() {}

    static Duration parse(CommandSpec spec, String option, String text) {
        try {
            return Durations.parse(option, text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}

package io.lbk8s.config;

/** Something wrong with the configuration, reported on the object that caused it. */
public record ConfigProblem(Severity severity, ConfigOrigin origin, String message) {

    public enum Severity {
        ERROR,
        WARNING
    }

    public static ConfigProblem error(ConfigOrigin origin, String message) {
        return new ConfigProblem(Severity.ERROR, origin, message);
    }

    public static ConfigProblem warning(ConfigOrigin origin, String message) {
        return new ConfigProblem(Severity.WARNING, origin, message);
    }

    @Override
    public String toString() {
        return severity + " " + origin + ": " + message;
    }
}

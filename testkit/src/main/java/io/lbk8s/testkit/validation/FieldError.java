package io.lbk8s.testkit.validation;

import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * One field's validation error, worded as apimachinery's {@code field.Error} words it:
 * {@code spec.ports[0].protocol: Unsupported value: "UDPk": supported values: "SCTP", "TCP", "UDP"}.
 *
 * @param value the bad value already printed as Go prints it ({@code "x"}, {@code 80}, {@code []string{...}}),
 *              or null when the error type shows no value
 */
public record FieldError(Type type, String field, String value, String detail) {

    /** The error types, with the words of their message and their Status cause {@code reason}. */
    public enum Type {
        REQUIRED("Required value", "FieldValueRequired"),
        INVALID("Invalid value", "FieldValueInvalid"),
        NOT_SUPPORTED("Unsupported value", "FieldValueNotSupported"),
        DUPLICATE("Duplicate value", "FieldValueDuplicate"),
        FORBIDDEN("Forbidden", "FieldValueForbidden"),
        TOO_LONG("Too long", "FieldValueTooLong"),
        TOO_MANY("Too many", "FieldValueTooMany");

        final String words;
        final String reason;

        Type(String words, String reason) {
            this.words = words;
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }

    public static FieldError required(String field, String detail) {
        return new FieldError(Type.REQUIRED, field, null, detail);
    }

    public static FieldError forbidden(String field, String detail) {
        return new FieldError(Type.FORBIDDEN, field, null, detail);
    }

    public static FieldError invalid(String field, String goValue, String detail) {
        return new FieldError(Type.INVALID, field, goValue, detail);
    }

    public static FieldError duplicate(String field, String goValue) {
        return new FieldError(Type.DUPLICATE, field, goValue, "");
    }

    public static FieldError notSupported(String field, String goValue, List<String> supported) {
        return new FieldError(
                Type.NOT_SUPPORTED,
                field,
                goValue,
                supported.isEmpty()
                        ? ""
                        : "supported values: "
                                + supported.stream().map(FieldError::quote).collect(Collectors.joining(", ")));
    }

    /** The message without the field, as in a Status cause. */
    public String body() {
        String s = value == null ? type.words : type.words + ": " + value;
        return detail == null || detail.isEmpty() ? s : s + ": " + detail;
    }

    @Override
    public String toString() {
        return field + ": " + body();
    }

    /** A Go {@code %q} string. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default -> b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** A JSON value printed as the API server prints the Go value it decoded to. */
    public static String goValue(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return "null";
        }
        if (value.isString()) {
            return quote(value.asString());
        }
        if (value.isArray()) {
            return "[]string{"
                    + value.valueStream()
                            .map(v -> v.isString() ? quote(v.asString()) : v.toString())
                            .collect(Collectors.joining(", "))
                    + "}";
        }
        return value.toString();
    }
}

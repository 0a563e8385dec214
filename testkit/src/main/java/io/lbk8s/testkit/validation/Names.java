package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** apimachinery's name formats and the sentences it answers when a value does not fit one. */
public enum Names {
    DNS1123_LABEL(
            63,
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
            "a lowercase RFC 1123 label must consist of lower case "
                    + "alphanumeric characters or '-', and must start and end with an alphanumeric character",
            "my-name",
            "123-abc"),
    DNS1123_SUBDOMAIN(
            253,
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
            "a lowercase RFC 1123 "
                    + "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                    + "alphanumeric character",
            "example.com"),
    DNS1035_LABEL(
            63,
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            "a DNS-1035 label must consist of lower case alphanumeric "
                    + "characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "my-name",
            "abc-123"),
    /** The name part of a qualified name (e.g. an appProtocol or loadBalancerClass without its prefix). */
    QUALIFIED_NAME_PART(
            63,
            "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]",
            "must consist of alphanumeric "
                    + "characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            "MyName",
            "my.name",
            "123-abc");

    private final int maxLength;
    private final String regex;
    private final Pattern pattern;
    private final String sentence;
    private final List<String> examples;

    Names(int maxLength, String regex, String sentence, String... examples) {
        this.maxLength = maxLength;
        this.regex = regex;
        this.pattern = Pattern.compile(regex);
        this.sentence = sentence;
        this.examples = List.of(examples);
    }

    /** What is wrong with {@code value} in this format; empty if nothing. */
    public List<String> problems(String value) {
        List<String> out = new ArrayList<>();
        if (value.length() > maxLength) {
            out.add("must be no more than " + maxLength + " characters");
        }
        if (!pattern.matcher(value).matches()) {
            out.add(regexError());
        }
        return out;
    }

    private String regexError() {
        StringBuilder b = new StringBuilder(sentence).append(" (e.g. ");
        for (int i = 0; i < examples.size(); i++) {
            b.append(i > 0 ? " or " : "").append('\'').append(examples.get(i)).append("', ");
        }
        return b.append("regex used for validation is '")
                .append(regex)
                .append("')")
                .toString();
    }

    /** One Invalid error per problem of {@code value} at {@code field}. */
    public List<FieldError> check(String field, String value) {
        return problems(value).stream()
                .map(p -> FieldError.invalid(field, FieldError.quote(value), p))
                .toList();
    }

    /** apimachinery's IsQualifiedName: {@code [prefix/]name}, the prefix a DNS subdomain. */
    public static List<FieldError> qualifiedName(String field, String value) {
        List<String> problems = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name = parts[parts.length - 1];
        if (parts.length > 2) {
            problems.add("a qualified name " + QUALIFIED_NAME_PART.regexError()
                    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
        } else {
            if (parts.length == 2) {
                if (parts[0].isEmpty()) {
                    problems.add("prefix part must be non-empty");
                } else {
                    DNS1123_SUBDOMAIN.problems(parts[0]).forEach(p -> problems.add("prefix part " + p));
                }
            }
            if (name.isEmpty()) {
                problems.add("name part must be non-empty");
            } else {
                QUALIFIED_NAME_PART.problems(name).forEach(p -> problems.add("name part " + p));
            }
        }
        return problems.stream()
                .map(p -> FieldError.invalid(field, FieldError.quote(value), p))
                .toList();
    }
}

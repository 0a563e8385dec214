package io.lbk8s.config;

import io.lbk8s.config.ConfigFields.Field;
import io.lbk8s.text.Quoted;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed reads of parsed JSON/YAML (maps, lists, scalars): a value of the wrong type is an error in the scope, worded
 * "path: expected X, got Y", and the read goes on with what is usable.
 */
final class RawValues {
    private RawValues() {}

    static boolean bool(ProblemScope scope, Map<?, ?> map, String path, String key, boolean otherwise) {
        Object value = map.get(key);
        if (value == null) {
            return otherwise;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        scope.error(path + ": expected a boolean (true or false), got " + describe(value));
        return otherwise;
    }

    static Integer integer(ProblemScope scope, String path, Object value) {
        BigInteger integral = integral(value);
        if (integral == null) {
            scope.error(path + ": expected an integer, got " + describe(value));
            return null;
        }
        if (integral.bitLength() > 31) {
            scope.error(path + ": " + integral + " is out of range for a 32-bit integer");
            return null;
        }
        return integral.intValue();
    }

    /** The whole number a parsed JSON number stands for (YAML may give 3.0 for 3), or null for anything else. */
    private static BigInteger integral(Object value) {
        return switch (value) {
            case Integer i -> BigInteger.valueOf(i);
            case Long l -> BigInteger.valueOf(l);
            case Short s -> BigInteger.valueOf(s);
            case Byte b -> BigInteger.valueOf(b);
            case BigInteger b -> b;
            case BigDecimal d when d.stripTrailingZeros().scale() <= 0 -> d.toBigIntegerExact();
            case Double d
            when d == Math.rint(d) && !d.isInfinite() -> BigDecimal.valueOf(d).toBigIntegerExact();
            case Float f
            when f == Math.rint(f) && !f.isInfinite() -> BigDecimal.valueOf(f).toBigIntegerExact();
            default -> null;
        };
    }

    /** A string field; null means absent. A value of another type is reported and read as absent. */
    static String string(ProblemScope scope, Map<?, ?> map, String path, String key) {
        Object value = map.get(key);
        if (value == null || value instanceof String) {
            return (String) value;
        }
        scope.error(path + ": expected a string, got " + describe(value));
        return null;
    }

    /**
     * A whole number from {@code min} to {@code max} (up to 64 bits, for AS numbers and other unsigned 32-bit
     * fields); out of range or of the wrong type is reported and read as null. {@code range} words the bounds for
     * the message: "path: 70000 is out of range; {@code range}".
     */
    static Long whole(ProblemScope scope, String path, Object value, long min, long max, String range) {
        BigInteger integral = integral(value);
        if (integral == null) {
            scope.error(path + ": expected an integer, got " + describe(value));
            return null;
        }
        if (integral.compareTo(BigInteger.valueOf(min)) < 0 || integral.compareTo(BigInteger.valueOf(max)) > 0) {
            scope.error(path + ": " + integral + " is out of range; " + range);
            return null;
        }
        return integral.longValue();
    }

    /**
     * A list whose items the caller reads; null means absent (an empty list), and anything else that is not a list is
     * reported as "path: expected {@code expected}, got ..." and read as an empty one.
     */
    static List<?> list(ProblemScope scope, String path, Object value, String expected) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            scope.error(path + ": expected " + expected + ", got " + describe(value));
            return List.of();
        }
        return list;
    }

    /** A list of strings; null means absent (an empty list). Type errors are reported and the bad items dropped. */
    static List<String> strings(ProblemScope scope, String path, Object value, String what) {
        List<?> list = list(scope, path, value, "a list of " + what);
        List<String> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String s) {
                result.add(s);
            } else {
                scope.error(path + "[" + i + "]: expected a string, got " + describe(item));
            }
        }
        return result;
    }

    static void warnUnknown(ProblemScope scope, String path, Map<?, ?> map, List<Field> known) {
        for (String key : unknownKeys(map, known)) {
            scope.warn((path.isEmpty() ? "" : path + ": ") + "unknown field " + Quoted.of(key) + " is ignored");
        }
    }

    static Set<String> unknownKeys(Map<?, ?> map, List<Field> known) {
        Set<String> unknown = new TreeSet<>();
        for (Object key : map.keySet()) {
            String name = String.valueOf(key);
            if (known.stream().noneMatch(f -> f.name().equals(name))) {
                unknown.add(name);
            }
        }
        return unknown;
    }

    static Set<String> stringKeys(Map<?, ?> map) {
        Set<String> keys = new TreeSet<>();
        for (Object key : map.keySet()) {
            keys.add(String.valueOf(key));
        }
        return keys;
    }

    /** Describes a parsed JSON value for "expected X, got Y" messages. */
    static String describe(Object value) {
        return switch (value) {
            case null -> "null";
            case String s -> "a string (" + Quoted.of(s) + ")";
            case Boolean b -> "a boolean (" + b + ")";
            case Number n -> "a number (" + n + ")";
            case List<?> l -> l.isEmpty() ? "an empty list" : "a list";
            case Map<?, ?> m -> m.isEmpty() ? "an empty map" : "a map";
            default -> "a " + value.getClass().getSimpleName();
        };
    }

    static String path(String base, String field) {
        return base.isEmpty() ? field : base + "." + field;
    }
}

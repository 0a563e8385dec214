package io.lbk8s.kube.lean;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;

/**
 * Reading an object's chosen fields from a token stream and skipping the rest without decoding it: what {@link
 * LeanDecoding}'s readers are made of. Every method starts with the parser at the value it reads and leaves it at that value's last
 * token (a scalar, or the END_OBJECT or END_ARRAY that closes it), as {@link JsonParser#skipChildren} does.
 */
final class JsonFields {
    private JsonFields() {}

    /** What one field's value is read into; {@link #skip} for the fields not read. */
    @FunctionalInterface
    interface FieldReader {
        void read(String name, JsonParser parser);
    }

    /** Calls {@code reader} for each field of the object at the parser; a null object reads nothing. */
    static void fields(JsonParser parser, FieldReader reader) {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        expect(parser, JsonToken.START_OBJECT);
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            parser.nextToken();
            reader.read(name, parser);
        }
    }

    /**
     * An object's apiVersion and metadata into {@code object}, its other fields to {@code rest}. Its kind is the
     * class's own (items in a list come without one, and fabric8's models start with theirs).
     */
    static <T extends HasMetadata> T object(JsonParser parser, T object, FieldReader rest) {
        fields(parser, (name, p) -> {
            switch (name) {
                case "apiVersion" -> object.setApiVersion(string(p));
                case "metadata" -> object.setMetadata(metadata(p));
                default -> rest.read(name, p);
            }
        });
        return object;
    }

    /** Calls {@code reader} with the value of the object's field {@code wanted}, if it has one; skips the others. */
    static void field(JsonParser parser, String wanted, Consumer<JsonParser> reader) {
        fields(parser, (name, p) -> {
            if (name.equals(wanted)) {
                reader.accept(p);
            } else {
                skip(p);
            }
        });
    }

    static void skip(JsonParser parser) {
        parser.skipChildren();
    }

    /** A string, or null for null; a number or a boolean as its text. */
    static String string(JsonParser parser) {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (!token.isScalarValue()) {
            throw new StreamReadException(parser, "expected a string, found " + token);
        }
        return parser.getString();
    }

    static Long number(JsonParser parser) {
        return parser.currentToken() == JsonToken.VALUE_NULL ? null : parser.getLongValue();
    }

    static Integer integer(JsonParser parser) {
        return parser.currentToken() == JsonToken.VALUE_NULL ? null : parser.getIntValue();
    }

    static Boolean bool(JsonParser parser) {
        return parser.currentToken() == JsonToken.VALUE_NULL ? null : parser.getBooleanValue();
    }

    /** A map of strings (labels, annotations); null for null. */
    static Map<String, String> stringMap(JsonParser parser) {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        Map<String, String> map = new HashMap<>();
        fields(parser, (name, p) -> map.put(name, string(p)));
        return map;
    }

    /** A list whose elements {@code element} reads; null for null. */
    static <T> List<T> list(JsonParser parser, Function<JsonParser, T> element) {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(parser, JsonToken.START_ARRAY);
        List<T> list = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            list.add(element.apply(parser));
        }
        return list;
    }

    /**
     * The metadata lbk8s reads or states: identity and version (informers' keys, Events, patches' preconditions),
     * labels, annotations, deletion. Managed fields, owner references and finalizers are skipped: they are most of
     * a Pod's metadata, and nothing here reads them.
     */
    static ObjectMeta metadata(JsonParser parser) {
        ObjectMeta meta = new ObjectMeta();
        fields(parser, (name, p) -> {
            switch (name) {
                case "name" -> meta.setName(string(p));
                case "generateName" -> meta.setGenerateName(string(p));
                case "namespace" -> meta.setNamespace(string(p));
                case "uid" -> meta.setUid(string(p));
                case "resourceVersion" -> meta.setResourceVersion(string(p));
                case "generation" -> meta.setGeneration(number(p));
                case "creationTimestamp" -> meta.setCreationTimestamp(string(p));
                case "deletionTimestamp" -> meta.setDeletionTimestamp(string(p));
                case "labels" -> meta.setLabels(stringMap(p));
                case "annotations" -> meta.setAnnotations(stringMap(p));
                default -> skip(p);
            }
        });
        return meta;
    }

    private static void expect(JsonParser parser, JsonToken expected) {
        if (parser.currentToken() != expected) {
            throw new StreamReadException(parser, "expected " + expected + ", found " + parser.currentToken());
        }
    }
}

package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What decoding a request body into a built-in kind's Go struct does: the first JSON value of the wrong type is an
 * error worded as Go's encoding/json words it, and fields the struct does not have are dropped (and reported, for
 * {@code fieldValidation=Strict} or {@code Warn}).
 */
public final class Decoding {

    /** @param typeError Go's message for the first value of a wrong type; unknownFields their paths, in order */
    public record Result(Optional<String> typeError, List<String> unknownFields) {}

    private final List<String> unknown = new ArrayList<>();
    private String typeError;

    private Decoding() {}

    /** Checks {@code object} against {@code type} and removes the fields it does not have. */
    public static Result decode(ObjectNode object, GoType.Struct type) {
        Decoding d = new Decoding();
        d.visitStruct(object, type, "", new ArrayList<>(), type.model().getSimpleName());
        return new Result(Optional.ofNullable(d.typeError), List.copyOf(d.unknown));
    }

    private void visit(JsonNode value, GoType type, String path, List<String> stack, String struct) {
        if (value.isNull()) {
            return;
        }
        switch (type) {
            case GoType.Any any -> {}
            case GoType.Struct s
            when value instanceof ObjectNode o ->
                visitStruct(o, s, path, stack, s.model().getSimpleName());
            case GoType.Slice s
            when value instanceof ArrayNode a -> {
                for (int i = 0; i < a.size(); i++) {
                    visit(a.get(i), s.element(), path + "[" + i + "]", stack, struct);
                }
            }
            case GoType.MapOf m
            when value instanceof ObjectNode o -> {
                for (Map.Entry<String, JsonNode> e : o.properties()) {
                    visit(e.getValue(), m.value(), path + "." + e.getKey(), stack, struct);
                }
            }
            case GoType.Scalar s when fits(value, s) -> {}
            default -> mismatch(value, type, stack, struct);
        }
    }

    private void visitStruct(ObjectNode object, GoType.Struct type, String path, List<String> stack, String struct) {
        Map<String, GoType> fields = type.fields();
        if (fields.isEmpty()) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = object.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
            GoType fieldType = fields.get(e.getKey());
            if (fieldType == null) {
                unknown.add(child);
                it.remove();
                continue;
            }
            stack.add(e.getKey());
            visit(e.getValue(), fieldType, child, stack, struct);
            stack.removeLast();
        }
    }

    private static boolean fits(JsonNode value, GoType.Scalar type) {
        return switch (type) {
            case STRING -> value.isString();
            case BOOL -> value.isBoolean();
            case FLOAT64 -> value.isNumber();
            case INT32 -> value.isIntegralNumber() && value.canConvertToInt();
            case INT64 -> value.isIntegralNumber() && value.canConvertToLong();
            case INT_OR_STRING -> value.isString() || (value.isIntegralNumber() && value.canConvertToInt());
            case QUANTITY -> value.isString() || value.isNumber();
        };
    }

    private void mismatch(JsonNode value, GoType type, List<String> stack, String struct) {
        if (typeError != null) {
            return; // Go reports the first
        }
        boolean numberToInteger = value.isNumber()
                && (type == GoType.Scalar.INT32 || type == GoType.Scalar.INT64 || type == GoType.Scalar.INT_OR_STRING);
        String what = switch (value.getNodeType()) {
            case OBJECT, POJO -> "object";
            case ARRAY -> "array";
            case STRING -> "string";
            case BOOLEAN -> "bool";
            case NUMBER -> numberToInteger ? "number " + value : "number"; // Go names the literal it cannot fit
            default -> value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
        };
        typeError = stack.isEmpty()
                ? "json: cannot unmarshal " + what + " into Go value of type " + type.goName()
                : "json: cannot unmarshal " + what + " into Go struct field " + struct + "." + String.join(".", stack)
                        + " of type " + type.goName();
    }
}

package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver does with a custom resource and its CRD version's {@code openAPIV3Schema}: prunes the fields
 * the schema does not know (unless {@code x-kubernetes-preserve-unknown-fields}), applies {@code default}s, then
 * validates types, required fields, enums, patterns, bounds and list sizes, in the API server's words:
 * {@code spec.addresses: Invalid value: "string": spec.addresses in body must be of type array: "string"}.
 * Not covered: CEL rules ({@code x-kubernetes-validations}), {@code anyOf}/{@code oneOf}/{@code allOf}/{@code not},
 * {@code format}s, list-type uniqueness.
 */
public final class StructuralSchema {

    private static final java.util.Set<String> ROOT_FIELDS = java.util.Set.of("apiVersion", "kind", "metadata");

    private StructuralSchema() {}

    /** Removes unknown fields; answers their paths (the {@code unknown field} list of strict field validation). */
    public static List<String> prune(ObjectNode object, JsonNode schema) {
        List<String> pruned = new ArrayList<>();
        pruneObject(object, schema, "", pruned, true);
        return pruned;
    }

    private static void prune(JsonNode value, JsonNode schema, String path, List<String> pruned) {
        if (value instanceof ObjectNode o && !schema.isMissingNode()) {
            pruneObject(
                    o,
                    schema,
                    path,
                    pruned,
                    schema.path("x-kubernetes-embedded-resource").asBoolean(false));
        } else if (value instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                prune(a.get(i), schema.path("items"), path + "[" + i + "]", pruned);
            }
        }
    }

    private static void pruneObject(ObjectNode o, JsonNode schema, String path, List<String> pruned, boolean resource) {
        boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.path("additionalProperties");
        for (Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
            if (resource
                    && (e.getKey().equals("metadata")
                            || ROOT_FIELDS.contains(e.getKey()) && !properties.has(e.getKey()))) {
                continue; // an embedded object's metadata is ObjectMeta, whatever the schema says
            }
            if (properties.has(e.getKey())) {
                prune(e.getValue(), properties.get(e.getKey()), child, pruned);
            } else if (additional.isObject()) {
                prune(e.getValue(), additional, child, pruned);
            } else if (!preserve && !additional.asBoolean(false)) {
                pruned.add(child);
                it.remove();
            }
        }
    }

    /** Sets the schema's {@code default}s on absent fields of present objects. */
    public static void applyDefaults(JsonNode value, JsonNode schema) {
        if (value instanceof ObjectNode o) {
            for (Map.Entry<String, JsonNode> p : schema.path("properties").properties()) {
                if (!o.has(p.getKey()) && p.getValue().has("default")) {
                    o.set(p.getKey(), p.getValue().get("default").deepCopy());
                }
                if (o.has(p.getKey())) {
                    applyDefaults(o.get(p.getKey()), p.getValue());
                }
            }
            if (schema.path("additionalProperties").isObject()) {
                o.values().forEach(v -> applyDefaults(v, schema.get("additionalProperties")));
            }
        } else if (value instanceof ArrayNode a) {
            a.values().forEach(v -> applyDefaults(v, schema.path("items")));
        }
    }

    /** The validation errors of {@code object}, in field order. */
    public static List<FieldError> validate(JsonNode object, JsonNode schema) {
        List<FieldError> errors = new ArrayList<>();
        validate(object, schema, "", errors);
        return errors;
    }

    private static void validate(JsonNode value, JsonNode schema, String path, List<FieldError> errors) {
        if (schema.isMissingNode() || schema.isEmpty()) {
            return;
        }
        String type = schema.path("type").asString("");
        String actual = typeOf(value);
        if (value.isNull() && schema.path("nullable").asBoolean(false)) {
            return;
        }
        boolean intOrString = schema.path("x-kubernetes-int-or-string").asBoolean(false);
        if (intOrString
                ? !(actual.equals("integer") || actual.equals("string"))
                : !type.isEmpty() && !actual.equals(type) && !(type.equals("number") && actual.equals("integer"))) {
            String expected = intOrString ? "integer,string" : type;
            errors.add(FieldError.invalid(
                    path,
                    FieldError.quote(actual),
                    path + " in body must be of type " + expected + ": " + FieldError.quote(actual)));
            return;
        }
        JsonNode enumeration = schema.path("enum");
        if (enumeration.isArray() && !enumeration.isEmpty() && !contains(enumeration, value)) {
            errors.add(FieldError.notSupported(
                    path,
                    FieldError.goValue(value),
                    enumeration
                            .valueStream()
                            .map(v -> v.isString() ? v.asString() : v.toString())
                            .toList()));
        }
        if (value.isString()) {
            String s = value.asString();
            if (schema.has("maxLength") && s.length() > schema.get("maxLength").asInt()) {
                errors.add(new FieldError(
                        FieldError.Type.TOO_LONG,
                        path,
                        null,
                        "may not be more than " + schema.get("maxLength").asInt() + " bytes"));
            }
            if (schema.has("minLength") && s.length() < schema.get("minLength").asInt()) {
                errors.add(FieldError.invalid(
                        path,
                        FieldError.quote(s),
                        path + " in body should be at least "
                                + schema.get("minLength").asInt() + " chars long"));
            }
            if (schema.has("pattern")
                    && !Pattern.compile(schema.get("pattern").asString())
                            .matcher(s)
                            .find()) {
                errors.add(FieldError.invalid(
                        path,
                        FieldError.quote(s),
                        path + " in body should match '" + schema.get("pattern").asString() + "'"));
            }
        }
        if (value.isNumber()) {
            bound(value, schema, "minimum", "exclusiveMinimum", path, errors);
            bound(value, schema, "maximum", "exclusiveMaximum", path, errors);
        }
        if (value instanceof ArrayNode a) {
            if (schema.has("maxItems") && a.size() > schema.get("maxItems").asInt()) {
                errors.add(new FieldError(
                        FieldError.Type.TOO_MANY,
                        path,
                        String.valueOf(a.size()),
                        "must have at most " + schema.get("maxItems").asInt() + " items"));
            }
            if (schema.has("minItems") && a.size() < schema.get("minItems").asInt()) {
                errors.add(FieldError.invalid(
                        path,
                        String.valueOf(a.size()),
                        path + " in body should have at least "
                                + schema.get("minItems").asInt() + " items"));
            }
            for (int i = 0; i < a.size(); i++) {
                validate(a.get(i), schema.path("items"), path + "[" + i + "]", errors);
            }
        }
        if (value instanceof ObjectNode o) {
            for (JsonNode required : schema.path("required").values()) {
                if (!o.has(required.asString())) {
                    errors.add(FieldError.required(
                            path.isEmpty() ? required.asString() : path + "." + required.asString(), ""));
                }
            }
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                JsonNode property = schema.path("properties").path(e.getKey());
                if (!path.isEmpty()
                        || !e.getKey().equals("metadata")
                                && (!ROOT_FIELDS.contains(e.getKey()) || !property.isMissingNode())) {
                    validate(
                            e.getValue(),
                            property.isMissingNode() ? schema.path("additionalProperties") : property,
                            child,
                            errors);
                }
            }
        }
    }

    private static void bound(
            JsonNode value, JsonNode schema, String key, String exclusiveKey, String path, List<FieldError> errors) {
        if (!schema.has(key)) {
            return;
        }
        double limit = schema.get(key).asDouble();
        boolean exclusive = schema.path(exclusiveKey).asBoolean(false);
        boolean min = key.equals("minimum");
        double v = value.asDouble();
        boolean ok = min ? (exclusive ? v > limit : v >= limit) : (exclusive ? v < limit : v <= limit);
        if (!ok) {
            String limitText = schema.get(key).toString();
            errors.add(FieldError.invalid(
                    path,
                    value.toString(),
                    path + " in body should be " + (min ? "greater" : "less") + " than "
                            + (exclusive ? "" : "or equal to ") + limitText));
        }
    }

    private static boolean contains(JsonNode enumeration, JsonNode value) {
        for (JsonNode v : enumeration.values()) {
            if (v.equals(value) || (v.isNumber() && value.isNumber() && v.asDouble() == value.asDouble())) {
                return true;
            }
        }
        return false;
    }

    /** The OpenAPI type a JSON value has, as the API server names it in its errors. */
    static String typeOf(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> "string";
            case BOOLEAN -> "boolean";
            case ARRAY -> "array";
            case OBJECT, POJO -> "object";
            case NULL, MISSING -> "null";
            case NUMBER ->
                value.isIntegralNumber() || value.asDouble() == Math.rint(value.asDouble()) ? "integer" : "number";
            default -> "string";
        };
    }
}

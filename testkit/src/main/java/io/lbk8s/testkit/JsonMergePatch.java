package io.lbk8s.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * RFC 7386 JSON merge patch: objects merge recursively, a {@code null} member deletes the key,
 * every other value (arrays included) replaces the target's value.
 */
public final class JsonMergePatch {

    private JsonMergePatch() {}

    /** Returns the patched document; {@code target} is not modified. */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (patch == null || !patch.isObject()) {
            return patch == null ? target : patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject()
                ? (ObjectNode) target.deepCopy()
                : JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> member : patch.properties()) {
            String key = member.getKey();
            JsonNode value = member.getValue();
            if (value.isNull()) {
                result.remove(key);
            } else {
                result.set(key, apply(result.get(key), value));
            }
        }
        return result;
    }

    /**
     * An approximation of Kubernetes' strategic merge patch: like RFC 7386, except that lists of
     * objects are merged element by element when every element carries one of the usual merge keys
     * ({@code name}, {@code type}, {@code port}, {@code containerPort}, {@code ip}), and list elements
     * with {@code "$patch": "delete"} remove the matching element. Other {@code $}-directives are
     * dropped. There is no schema, so this is not exact for every field.
     */
    public static JsonNode applyStrategic(JsonNode target, JsonNode patch) {
        if (patch == null) {
            return target;
        }
        if (patch.isArray() && target != null && target.isArray()) {
            String key = mergeKey(target, patch);
            if (key != null) {
                return mergeLists(target, patch, key);
            }
            return stripDirectives(patch);
        }
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        if ("replace".equals(patch.path("$patch").asString(""))) {
            return stripDirectives(patch);
        }
        ObjectNode result = target != null && target.isObject()
                ? (ObjectNode) target.deepCopy()
                : JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> member : patch.properties()) {
            String key = member.getKey();
            JsonNode value = member.getValue();
            if (key.startsWith("$")) {
                continue;
            }
            if (value.isNull()) {
                result.remove(key);
            } else {
                result.set(key, applyStrategic(result.get(key), value));
            }
        }
        return result;
    }

    private static final List<String> MERGE_KEYS = List.of("name", "type", "port", "containerPort", "ip");

    private static String mergeKey(JsonNode target, JsonNode patch) {
        for (String key : MERGE_KEYS) {
            if (allObjectsWith(target, key) && allObjectsWith(patch, key) && !patch.isEmpty()) {
                return key;
            }
        }
        return null;
    }

    private static boolean allObjectsWith(JsonNode array, String key) {
        for (JsonNode element : array.values()) {
            if (!element.isObject() || !element.has(key)) {
                return false;
            }
        }
        return true;
    }

    private static JsonNode mergeLists(JsonNode target, JsonNode patch, String key) {
        List<JsonNode> merged = new ArrayList<>();
        target.values().forEach(merged::add);
        for (JsonNode element : patch.values()) {
            JsonNode id = element.get(key);
            int index = -1;
            for (int i = 0; i < merged.size(); i++) {
                if (id.equals(merged.get(i).get(key))) {
                    index = i;
                    break;
                }
            }
            boolean delete = "delete".equals(element.path("$patch").asString(""));
            if (delete) {
                if (index >= 0) {
                    merged.remove(index);
                }
            } else if (index >= 0) {
                merged.set(index, applyStrategic(merged.get(index), element));
            } else {
                merged.add(stripDirectives(element));
            }
        }
        var array = JsonNodeFactory.instance.arrayNode();
        merged.forEach(array::add);
        return array;
    }

    private static JsonNode stripDirectives(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> member : node.properties()) {
                if (!member.getKey().startsWith("$")) {
                    copy.set(member.getKey(), stripDirectives(member.getValue()));
                }
            }
            return copy;
        }
        if (node.isArray()) {
            var copy = JsonNodeFactory.instance.arrayNode();
            node.values().forEach(v -> copy.add(stripDirectives(v)));
            return copy;
        }
        return node.deepCopy();
    }
}

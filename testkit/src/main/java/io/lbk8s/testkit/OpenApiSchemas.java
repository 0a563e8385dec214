package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.lbk8s.testkit.validation.GoType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code components.schemas} of an {@code /openapi/v3} group-version document, what {@code kubectl explain}
 * reads: built-in kinds from fabric8's model of their Go structs (fields and types, no descriptions), custom
 * resources from their CRD version's openAPIV3Schema. Each kind's schema carries its
 * {@code x-kubernetes-group-version-kind}.
 */
final class OpenApiSchemas {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final ObjectNode schemas = F.objectNode();
    private final Deque<GoType.Struct> pending = new ArrayDeque<>();

    private OpenApiSchemas() {}

    /** @param kinds the kinds of this group version, each with its CRD schema when it is a custom resource */
    static ObjectNode components(String group, String version, Map<String, Optional<JsonNode>> kinds) {
        OpenApiSchemas s = new OpenApiSchemas();
        for (Map.Entry<String, Optional<JsonNode>> kind : kinds.entrySet()) {
            Optional<ObjectNode> schema = kind.getValue().isPresent()
                    ? Optional.of(s.custom(
                            group + "." + version + "." + kind.getKey(),
                            kind.getValue().get()))
                    : BuiltInModels.struct(group, version, kind.getKey())
                            .map(t -> (ObjectNode) s.schemas.get(s.ref(t)));
            schema.ifPresent(k -> {
                ObjectNode gvk = k.putArray("x-kubernetes-group-version-kind").addObject();
                gvk.put("group", group);
                gvk.put("kind", kind.getKey());
                gvk.put("version", version);
            });
            s.drain();
        }
        ObjectNode components = F.objectNode();
        components.set("schemas", s.schemas);
        return components;
    }

    private ObjectNode custom(String name, JsonNode crdSchema) {
        ObjectNode schema = (ObjectNode) crdSchema.deepCopy();
        ObjectNode properties = schema.get("properties") instanceof ObjectNode p ? p : schema.putObject("properties");
        properties.set("metadata", reference(new GoType.Struct(ObjectMeta.class)));
        schemas.set(name, schema);
        return schema;
    }

    /** Adds a struct's schema (and, by {@link #drain}, those it refers to); answers its name. */
    private String ref(GoType.Struct type) {
        String name = nameOf(type);
        if (!schemas.has(name)) {
            ObjectNode schema = schemas.putObject(name);
            schema.put("type", "object");
            pending.add(type);
        }
        return name;
    }

    private void drain() {
        while (!pending.isEmpty()) {
            GoType.Struct type = pending.poll();
            ObjectNode properties = ((ObjectNode) schemas.get(nameOf(type))).putObject("properties");
            type.fields().forEach((field, fieldType) -> properties.set(field, schemaOf(fieldType)));
        }
    }

    private ObjectNode schemaOf(GoType type) {
        ObjectNode s = F.objectNode();
        switch (type) {
            case GoType.Struct struct
            when !struct.fields().isEmpty() -> {
                return reference(struct);
            }
            case GoType.Struct struct -> s.put("type", "object").put("x-kubernetes-preserve-unknown-fields", true);
            case GoType.Slice slice -> s.put("type", "array").set("items", schemaOf(slice.element()));
            case GoType.MapOf map -> s.put("type", "object").set("additionalProperties", schemaOf(map.value()));
            case GoType.Scalar scalar -> {
                switch (scalar) {
                    case STRING -> s.put("type", "string");
                    case BOOL -> s.put("type", "boolean");
                    case FLOAT64 -> s.put("type", "number").put("format", "double");
                    case INT32, INT64 -> s.put("type", "integer").put("format", scalar.goName());
                    case INT_OR_STRING, QUANTITY -> s.put("x-kubernetes-int-or-string", true);
                }
            }
            case GoType.Any any -> s.put("type", "object").put("x-kubernetes-preserve-unknown-fields", true);
        }
        return s;
    }

    private ObjectNode reference(GoType.Struct struct) {
        ObjectNode s = F.objectNode();
        s.putArray("allOf").addObject().put("$ref", "#/components/schemas/" + ref(struct));
        s.putObject("default");
        return s;
    }

    /** As the real documents name them: {@code io.k8s.api.core.v1.ServiceSpec}. */
    private static String nameOf(GoType.Struct type) {
        String pkg = type.model().getPackageName().replaceFirst("^io\\.fabric8\\.kubernetes\\.api\\.model\\.?", "");
        return "io.k8s.api." + (pkg.isEmpty() ? "core.v1" : pkg) + "."
                + type.model().getSimpleName();
    }
}

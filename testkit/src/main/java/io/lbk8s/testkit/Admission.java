package io.lbk8s.testkit;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.lbk8s.testkit.validation.Decoding;
import io.lbk8s.testkit.validation.EndpointSliceRules;
import io.lbk8s.testkit.validation.FieldError;
import io.lbk8s.testkit.validation.GoType;
import io.lbk8s.testkit.validation.Names;
import io.lbk8s.testkit.validation.NodeRules;
import io.lbk8s.testkit.validation.ObjectMetaRules;
import io.lbk8s.testkit.validation.ServiceRules;
import io.lbk8s.testkit.validation.StructuralSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver does to a written object between reading the body and storing it: decoding into the kind's
 * type (400 for a value of the wrong type, unknown fields dropped, refused under {@code fieldValidation=Strict},
 * warned about under {@code Warn}, the default), defaults, then validation (422 {@code Invalid} with the field
 * errors). Built-in kinds are decoded against fabric8's model of their Go struct; custom resources against their
 * CRD version's schema.
 */
final class Admission {

    /** The kind being written: its Kind name and, for a custom resource, its CRD version's openAPIV3Schema. */
    record Target(ResourcePath path, String kind, Optional<JsonNode> schema) {
        String group() {
            return path.group();
        }

        boolean custom() {
            return schema.isPresent();
        }
    }

    private Admission() {}

    /**
     * Decodes {@code body} (in place: unknown fields removed, custom resource defaults applied).
     *
     * @return the warnings to send (one per dropped field under {@code fieldValidation=Warn})
     */
    static List<String> decode(Target target, ObjectNode body) {
        List<String> unknown;
        if (target.custom()) {
            unknown = StructuralSchema.prune(body, target.schema().get());
            if (body.get("metadata") instanceof ObjectNode meta) {
                decodeStruct(target, meta, new GoType.Struct(ObjectMeta.class), "metadata.", unknown);
            }
            StructuralSchema.applyDefaults(body, target.schema().get());
        } else {
            Optional<GoType.Struct> type =
                    BuiltInModels.struct(target.group(), target.path().version(), target.kind());
            if (type.isEmpty()) {
                return List.of();
            }
            unknown = new ArrayList<>();
            decodeStruct(target, body, type.get(), "", unknown);
            builtInDefaults(target, body);
        }
        String mode = target.path().query().getOrDefault("fieldValidation", "Warn");
        if (unknown.isEmpty() || mode.equals("Ignore")) {
            return List.of();
        }
        List<String> messages = unknown.stream()
                .map(f -> "unknown field " + FieldError.quote(f))
                .toList();
        if (mode.equals("Strict")) {
            throw ApiException.undecodable(
                    target.kind(), target.path().version(), "strict decoding error: " + String.join(", ", messages));
        }
        return messages;
    }

    private static void decodeStruct(
            Target target, ObjectNode body, GoType.Struct type, String prefix, List<String> unknown) {
        Decoding.Result result = Decoding.decode(body, type);
        result.typeError().ifPresent(e -> {
            throw ApiException.undecodable(target.kind(), target.path().version(), e);
        });
        result.unknownFields().forEach(f -> unknown.add(prefix + f));
    }

    /** Defaults of built-in kinds other than Services' (those allocate, see {@link ServiceDefaults}). */
    private static void builtInDefaults(Target target, ObjectNode body) {
        if (target.group().equals("discovery.k8s.io") && target.path().plural().equals("endpointslices")) {
            for (JsonNode port : body.path("ports").values()) {
                if (port instanceof ObjectNode p && !p.hasNonNull("protocol")) {
                    p.put("protocol", "TCP");
                }
            }
        } else if (target.group().isEmpty() && target.path().plural().equals("services")) {
            for (JsonNode ingress :
                    body.path("status").path("loadBalancer").path("ingress").values()) {
                if (ingress instanceof ObjectNode i && i.hasNonNull("ip") && !i.hasNonNull("ipMode")) {
                    i.put("ipMode", "VIP");
                }
            }
        }
    }

    /** What the Namespace strategy sets on create: the {@code kubernetes} finalizer, phase and name label. */
    static void namespaceOnCreate(ObjectNode namespace) {
        ObjectNode spec = namespace.get("spec") instanceof ObjectNode s ? s : namespace.putObject("spec");
        if (spec.path("finalizers").isEmpty()) {
            spec.putArray("finalizers").add("kubernetes");
        }
        namespace.putObject("status").put("phase", "Active");
        ObjectNode meta = namespace.get("metadata") instanceof ObjectNode m ? m : namespace.putObject("metadata");
        ObjectNode labels = meta.get("labels") instanceof ObjectNode l ? l : meta.putObject("labels");
        labels.put("kubernetes.io/metadata.name", meta.path("name").asString(""));
    }

    /** Validates the object about to be stored; {@code old} is the stored one on an update. */
    static void validate(Target target, JsonNode object, Optional<JsonNode> old) {
        List<FieldError> errors = errors(target, object, old);
        if (!errors.isEmpty()) {
            throw ApiException.invalid(
                    target.kind(),
                    target.group(),
                    object.path("metadata").path("name").asString(""),
                    errors);
        }
    }

    private static List<FieldError> errors(Target target, JsonNode object, Optional<JsonNode> old) {
        if (target.custom()) {
            List<FieldError> errors = new ArrayList<>(ObjectMetaRules.validate(object, Names.DNS1123_SUBDOMAIN));
            errors.addAll(StructuralSchema.validate(object, target.schema().get()));
            return errors;
        }
        String resource = target.group() + "/" + target.path().plural();
        return switch (resource) {
            case "/services" -> {
                List<FieldError> errors = new ArrayList<>(old.map(o -> ServiceRules.validateUpdate(object, o))
                        .orElseGet(() -> ServiceRules.validateCreate(object)));
                errors.addAll(ServiceRules.validateStatus(object.path("status")));
                yield errors;
            }
            case "discovery.k8s.io/endpointslices" ->
                old.map(o -> EndpointSliceRules.validateUpdate(object, o))
                        .orElseGet(() -> EndpointSliceRules.validateCreate(object));
            case "/namespaces" -> ObjectMetaRules.validate(object, Names.DNS1123_LABEL);
            case "/nodes" -> NodeRules.validate(object);
            default ->
                target.group().equals("rbac.authorization.k8s.io")
                        ? List.of()
                        : ObjectMetaRules.validate(object, Names.DNS1123_SUBDOMAIN);
        };
    }

    /** The schema of {@code version} in a stored CRD, if it declares one. */
    static Optional<JsonNode> schemaOf(JsonNode crd, String version) {
        for (JsonNode v : crd.path("spec").path("versions").values()) {
            if (v.path("name").asString("").equals(version)) {
                JsonNode schema = v.path("schema").path("openAPIV3Schema");
                return schema.isObject() ? Optional.of(schema) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Warning headers as the API server sends them. */
    static String warningHeader(String message) {
        return "299 - " + FieldError.quote(message);
    }
}

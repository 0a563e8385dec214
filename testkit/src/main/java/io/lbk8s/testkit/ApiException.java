package io.lbk8s.testkit;

import io.fabric8.mockwebserver.http.MockResponse;
import io.lbk8s.testkit.validation.FieldError;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** An error answered as a {@code meta/v1 Status} object, as the API server does. */
final class ApiException extends RuntimeException {

    private final int code;
    private final String reason;
    private final String name;
    private final String group;
    private final String kind;
    private final List<FieldError> causes;

    ApiException(int code, String reason, String message, String name, String group, String kind) {
        this(code, reason, message, name, group, kind, List.of());
    }

    private ApiException(
            int code, String reason, String message, String name, String group, String kind, List<FieldError> causes) {
        super(message);
        this.code = code;
        this.reason = reason;
        this.name = name;
        this.group = group;
        this.kind = kind;
        this.causes = List.copyOf(causes);
    }

    /**
     * apimachinery's NewInvalid: {@code Service "x" is invalid: <error>} (several errors as {@code [e1, e2]}), with
     * one cause per field error and the kind (not the resource) in its details.
     */
    static ApiException invalid(String kind, String group, String name, List<FieldError> errors) {
        Set<String> messages = new LinkedHashSet<>();
        errors.forEach(e -> messages.add(e.toString()));
        String qualifiedKind = group.isEmpty() ? kind : kind + "." + group;
        String aggregate = messages.size() == 1 ? messages.iterator().next() : "[" + String.join(", ", messages) + "]";
        return new ApiException(
                422,
                "Invalid",
                qualifiedKind + " \"" + name + "\" is invalid: " + aggregate,
                name,
                group,
                kind,
                errors);
    }

    /** The API server's answer to a body it cannot decode into {@code kind}: 400 with the decoder's words. */
    static ApiException undecodable(String kind, String version, String error) {
        return badRequest(kind + " in version \"" + version + "\" cannot be handled as a " + kind + ": " + error);
    }

    ApiException(int code, String reason, String message) {
        this(code, reason, message, null, null, null);
    }

    static ApiException notFound(ResourcePath rp) {
        return new ApiException(
                404,
                "NotFound",
                qualified(rp) + " \"" + rp.name() + "\" not found",
                rp.name(),
                rp.group(),
                rp.plural());
    }

    static ApiException conflict(ResourcePath rp) {
        return new ApiException(
                409,
                "Conflict",
                "Operation cannot be fulfilled on " + qualified(rp) + " \"" + rp.name()
                        + "\": the object has been modified; please apply your changes to the latest version and try again",
                rp.name(),
                rp.group(),
                rp.plural());
    }

    static ApiException invalid(ResourcePath rp, String message) {
        return new ApiException(
                422,
                "Invalid",
                message,
                rp == null ? null : rp.name(),
                rp == null ? null : rp.group(),
                rp == null ? null : rp.plural());
    }

    static ApiException badRequest(String message) {
        return new ApiException(400, "BadRequest", message);
    }

    static String qualified(ResourcePath rp) {
        return rp.group().isEmpty() ? rp.plural() : rp.plural() + "." + rp.group();
    }

    int code() {
        return code;
    }

    MockResponse response() {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(withCauses(body(code, reason, getMessage(), name, group, kind))
                        .toString());
    }

    private ObjectNode withCauses(ObjectNode status) {
        if (!causes.isEmpty() && status.get("details") instanceof ObjectNode details) {
            ArrayNode array = details.putArray("causes");
            for (FieldError e : causes) {
                ObjectNode cause = array.addObject();
                cause.put("reason", e.type().reason());
                cause.put("message", e.body());
                cause.put("field", e.field());
            }
        }
        return status;
    }

    static ObjectNode body(int code, String reason, String message, String name, String group, String kind) {
        ObjectNode s = JsonNodeFactory.instance.objectNode();
        s.put("kind", "Status");
        s.put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure");
        s.put("message", message == null ? reason : message);
        s.put("reason", reason);
        if (name != null || kind != null) {
            ObjectNode d = s.putObject("details");
            if (name != null) {
                d.put("name", name);
            }
            if (group != null && !group.isEmpty()) {
                d.put("group", group);
            }
            if (kind != null) {
                d.put("kind", kind);
            }
        }
        s.put("code", code);
        return s;
    }

    static String reasonFor(int code) {
        return switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 405 -> "MethodNotAllowed";
            case 409 -> "Conflict";
            case 410 -> "Expired";
            case 415 -> "UnsupportedMediaType";
            case 422 -> "Invalid";
            case 429 -> "TooManyRequests";
            default -> "InternalError";
        };
    }
}

package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/** apimachinery's ValidateObjectMeta: the name (in the format its kind asks for), labels and annotation keys. */
public final class ObjectMetaRules {

    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    private ObjectMetaRules() {}

    public static List<FieldError> validate(JsonNode object, Names nameFormat) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode meta = object.path("metadata");
        String name = meta.path("name").asString("");
        if (name.isEmpty()) {
            if (meta.path("generateName").asString("").isEmpty()) {
                errors.add(FieldError.required("metadata.name", "name or generateName is required"));
            }
        } else {
            errors.addAll(nameFormat.check("metadata.name", name));
        }
        for (Map.Entry<String, JsonNode> label : meta.path("labels").properties()) {
            errors.addAll(Names.qualifiedName("metadata.labels", label.getKey()));
            String value = label.getValue().asString("");
            if (value.length() > 63) {
                errors.add(FieldError.invalid(
                        "metadata.labels", FieldError.quote(value), "must be no more than 63 characters"));
            }
            if (!LABEL_VALUE.matcher(value).matches()) {
                errors.add(FieldError.invalid(
                        "metadata.labels",
                        FieldError.quote(value),
                        "a valid label must be an empty "
                                + "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                                + "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '"
                                + LABEL_VALUE.pattern() + "')"));
            }
        }
        for (Map.Entry<String, JsonNode> annotation : meta.path("annotations").properties()) {
            Names.qualifiedName("metadata.annotations", annotation.getKey().toLowerCase(java.util.Locale.ROOT)).stream()
                    .map(e -> FieldError.invalid(e.field(), FieldError.quote(annotation.getKey()), e.detail()))
                    .forEach(errors::add);
        }
        return errors;
    }
}

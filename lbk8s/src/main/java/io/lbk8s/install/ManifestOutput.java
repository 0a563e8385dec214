package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/** Writes objects as kubectl does: YAML documents separated by "---", or JSON as one v1 List. */
public final class ManifestOutput {
    private ManifestOutput() {}

    public enum Format {
        yaml,
        json
    }

    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    public static String write(List<? extends HasMetadata> objects, Format format) {
        return switch (format) {
            case yaml -> yaml(objects);
            case json ->
                pretty(SERIALIZATION.asJson(new KubernetesListBuilder()
                        .withItems(List.copyOf(objects))
                        .build()));
        };
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Indented like kubectl's -o json. */
    private static String pretty(String json) {
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(json)) + "\n";
    }

    /** kubectl-like YAML: quotes only where YAML needs them (numbers and booleans kept as strings stay quoted). */
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(
                    YAMLWriteFeature.MINIMIZE_QUOTES,
                    YAMLWriteFeature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS,
                    YAMLWriteFeature.LITERAL_BLOCK_STYLE)
            .disable(YAMLWriteFeature.SPLIT_LINES)
            .build();

    private static String asYaml(Object value) {
        return YAML.writeValueAsString(JSON.readTree(SERIALIZATION.asJson(value)));
    }

    private static String yaml(List<? extends HasMetadata> objects) {
        StringBuilder out = new StringBuilder();
        for (HasMetadata object : objects) {
            String doc = asYaml(object);
            if (!doc.startsWith("---")) {
                out.append("---\n");
            }
            out.append(doc);
            if (!doc.endsWith("\n")) {
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** Any value (records, maps) as YAML or JSON, for the status command's -o. */
    public static String value(Object value, Format format) {
        return switch (format) {
            case yaml -> asYaml(value);
            case json -> pretty(SERIALIZATION.asJson(value));
        };
    }
}

package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.unknownKeys;
import static io.lbk8s.config.RawValues.warnUnknown;

import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The pools of the lbk8s ConfigMap: its {@code config.yaml} key holds one YAML document, {@code pools:} a list of
 * pools, each a name and the fields of an IPAddressPool spec.
 */
final class ConfigMapPools {
    private ConfigMapPools() {}

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // we read document after document
            .build();

    static List<PoolDraft> poolsFromConfigMap(ConfigSources.RawConfigMap configMap, List<ConfigProblem> problems) {
        ConfigOrigin origin = new ConfigOrigin(ConfigOrigin.Kind.ConfigMap, configMap.namespace(), configMap.name());
        ProblemScope top = new ProblemScope(origin, "", problems);
        if (configMap.configYaml() == null) {
            top.warn("has no config.yaml key, so it defines no pools");
            return List.of();
        }
        List<Object> documents;
        try {
            documents = readDocuments(configMap.configYaml());
        } catch (JacksonException e) {
            String where = e.getLocation() == null || e.getLocation().getLineNr() < 1
                    ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr() + ")";
            String reason = firstLine(e.getOriginalMessage());
            top.error("config.yaml is not valid YAML" + where + ": " + reason);
            return List.of();
        }
        if (documents.size() > 1) {
            top.error("config.yaml has " + documents.size() + " YAML documents; expected one");
            return List.of();
        }
        Object document = documents.isEmpty() ? null : documents.getFirst();
        if (document == null) {
            return List.of(); // empty or only comments: no pools
        }
        if (!(document instanceof Map<?, ?> root)) {
            top.error("config.yaml: expected a map with a \"pools\" list, got " + describe(document));
            return List.of();
        }
        for (String key : unknownKeys(root, ConfigFields.CONFIGMAP_FIELDS)) {
            top.warn("config.yaml: unknown field " + Quoted.of(key) + " is ignored");
        }
        List<?> list = RawValues.list(top, "pools", root.get("pools"), "a list of pools");
        List<PoolDraft> drafts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "pools[" + i + "]";
            Object item = list.get(i);
            if (!(item instanceof Map<?, ?> poolMap)) {
                top.error(path + ": expected a map with \"name\" and \"addresses\", got " + describe(item));
                continue;
            }
            Object nameValue = poolMap.get("name");
            String name = null;
            ProblemScope scope;
            if (nameValue == null) {
                scope = new ProblemScope(origin, path + ": ", problems);
                scope.error("name is required: expected a non-empty string");
            } else if (!(nameValue instanceof String s)) {
                scope = new ProblemScope(origin, path + ": ", problems);
                scope.error("name: expected a string, got " + describe(nameValue));
            } else if (s.isBlank()) {
                scope = new ProblemScope(origin, path + ": ", problems);
                scope.error("name is required: expected a non-empty string, got an empty string");
            } else {
                name = s;
                scope = new ProblemScope(origin, path + " " + Quoted.of(s) + ": ", problems);
            }
            PoolDraft draft = new PoolDraft(name, scope, Map.of(), origin + " " + path);
            warnUnknown(scope, "", poolMap, ConfigFields.CONFIGMAP_POOL_FIELDS);
            PoolParser.parsePoolBody(scope, "", poolMap, draft);
            if (name != null) {
                drafts.add(draft);
            }
        }
        return drafts;
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "unreadable";
        }
        int newline = text.indexOf('\n');
        return (newline < 0 ? text : text.substring(0, newline)).strip();
    }

    /** Every YAML document of the text, as maps/lists/scalars (a top-level list stays one list). */
    private static List<Object> readDocuments(String text) {
        List<Object> documents = new ArrayList<>();
        try (JsonParser parser = YAML.createParser(text)) {
            while (parser.nextToken() != null) {
                documents.add(YAML.readValue(parser, Object.class));
            }
        }
        return documents;
    }
}

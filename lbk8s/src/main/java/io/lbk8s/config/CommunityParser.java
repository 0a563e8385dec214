package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.string;
import static io.lbk8s.config.RawValues.warnUnknown;

import io.lbk8s.bgp.Community;
import io.lbk8s.text.Quoted;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Community objects: named aliases of community values, which BGPAdvertisements may name instead of the value. An
 * alias name is global, like a pool name: defined a second time (in the same object or a later one), it is an
 * error on the later definition. A refused Community object defines no alias.
 */
final class CommunityParser {
    private CommunityParser() {}

    /** Every alias of the valid objects, the objects taken in the order given (first definition wins). */
    static Map<String, Community> aliases(List<ConfigSources.RawObject> objects, List<ConfigProblem> problems) {
        Map<String, Community> aliases = new HashMap<>();
        Map<String, String> definedBy = new HashMap<>();
        for (ConfigSources.RawObject raw : objects) {
            ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.Community, raw, problems);
            Map<String, Community> own = own(scope, raw, definedBy);
            if (!scope.failed) {
                aliases.putAll(own);
                own.keySet().forEach(name -> definedBy.putIfAbsent(name, scope.origin.toString()));
            }
        }
        return aliases;
    }

    private static Map<String, Community> own(
            ProblemScope scope, ConfigSources.RawObject raw, Map<String, String> definedBefore) {
        Map<String, Community> own = new LinkedHashMap<>();
        Optional<Map<?, ?>> read = ObjectSpec.of(scope, raw, Optional.empty(), ConfigFields.COMMUNITY_SPEC_FIELDS);
        if (read.isEmpty()) {
            return own;
        }
        List<?> list =
                RawValues.list(scope, "communities", read.get().get("communities"), "a list of {name, value} aliases");
        Map<String, String> ownPaths = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "communities[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> entry)) {
                scope.error(path + ": expected {name, value}, got " + describe(list.get(i)));
                continue;
            }
            warnUnknown(scope, path, entry, ConfigFields.COMMUNITY_ALIAS_FIELDS);
            String name = string(scope, entry, path + ".name", "name");
            String value = string(scope, entry, path + ".value", "value");
            if (name == null || name.isEmpty()) {
                scope.error(path + ".name is required: the alias BGPAdvertisements write instead of the value");
            }
            Community community = null;
            if (value == null || value.isEmpty()) {
                scope.error(path + ".value is required: " + CommunityValues.FORMS);
            } else {
                switch (CommunityValues.parse(value)) {
                    case CommunityValues.Parsed.Valid(Community valid) -> community = valid;
                    case CommunityValues.Parsed.Invalid(String reason, boolean malformed) ->
                        scope.error(path + ".value " + Quoted.of(value) + ": " + reason);
                }
            }
            if (name == null || name.isEmpty()) {
                continue;
            }
            String where = ownPaths.containsKey(name) ? ownPaths.get(name) : definedBefore.get(name);
            if (where != null) {
                scope.error(path + ".name: alias " + Quoted.of(name) + " is already defined by " + where);
                continue;
            }
            ownPaths.put(name, path);
            if (community != null) {
                own.put(name, community);
            }
        }
        return own;
    }
}

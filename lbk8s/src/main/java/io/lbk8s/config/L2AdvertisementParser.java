package io.lbk8s.config;

import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.integer;
import static io.lbk8s.config.RawValues.strings;
import static io.lbk8s.config.RawValues.warnUnknown;

import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** One L2Advertisement: the pools it announces, the nodes that may announce them and which they prefer, the interfaces. */
final class L2AdvertisementParser {
    private L2AdvertisementParser() {}

    private static final Pattern INTERFACE_NAME = Pattern.compile("[^/:\\s]{1,15}");

    static Optional<L2Advertisement> parse(
            ConfigSources.RawObject raw, Set<String> poolNames, List<ConfigProblem> problems) {
        ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.L2Advertisement, raw, problems);
        // every field is optional: an empty spec announces every pool from every node
        Optional<Map<?, ?>> read = ObjectSpec.of(scope, raw, Optional.empty(), ConfigFields.L2_KNOWN_FIELDS);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get();

        List<String> pools = strings(scope, "ipAddressPools", spec.get("ipAddressPools"), "pool names");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < pools.size(); i++) {
            String pool = pools.get(i);
            String entryPath = "ipAddressPools[" + i + "]";
            if (!seen.add(pool)) {
                scope.warn(entryPath + ": pool " + Quoted.of(pool) + " is listed twice");
            } else if (!poolNames.contains(pool)) {
                scope.warn(entryPath + ": pool " + Quoted.of(pool) + " does not exist");
            }
        }
        List<LabelSelector> poolSelectors =
                LabelSelectorParser.selectors(scope, "ipAddressPoolSelectors", spec.get("ipAddressPoolSelectors"));
        List<LabelSelector> nodeSelectors =
                LabelSelectorParser.selectors(scope, "nodeSelectors", spec.get("nodeSelectors"));
        List<String> interfaces = strings(scope, "interfaces", spec.get("interfaces"), "interface names");
        for (int i = 0; i < interfaces.size(); i++) {
            if (!INTERFACE_NAME.matcher(interfaces.get(i)).matches()) {
                scope.warn(
                        "interfaces[" + i + "]: " + Quoted.of(interfaces.get(i))
                                + " is not a valid network interface name (1-15 characters, no '/', ':' or spaces), so it matches no interface");
            }
        }
        Object serviceSelectors = spec.get("serviceSelectors");
        if (serviceSelectors instanceof List<?> list && !list.isEmpty()) {
            scope.error(
                    "serviceSelectors is not supported by lbk8s: remove it (ignoring it would announce every Service of the selected pools)");
        }
        List<PreferredNodeSelector> preferred = preferredNodeSelectors(scope, spec.get("preferredNodeSelectors"));
        if (scope.failed) {
            return Optional.empty();
        }
        return Optional.of(new L2Advertisement(
                raw.name(), pools, poolSelectors, nodeSelectors, preferred, interfaces, scope.origin));
    }

    private static List<PreferredNodeSelector> preferredNodeSelectors(ProblemScope scope, Object value) {
        String path = "preferredNodeSelectors";
        List<?> list = RawValues.list(scope, path, value, "a list of {weight, preference}");
        List<PreferredNodeSelector> result = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String entryPath = path + "[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> entry)) {
                scope.error(entryPath + ": expected {weight, preference}, got " + describe(list.get(i)));
                continue;
            }
            warnUnknown(scope, entryPath, entry, ConfigFields.PREFERRED_NODE_SELECTOR_FIELDS);
            Integer weight = null;
            if (entry.get("weight") == null) {
                scope.error(entryPath + ".weight is required (1-100)");
            } else {
                weight = integer(scope, entryPath + ".weight", entry.get("weight"));
                if (weight != null
                        && (weight < PreferredNodeSelector.MIN_WEIGHT || weight > PreferredNodeSelector.MAX_WEIGHT)) {
                    scope.error(entryPath + ".weight: " + weight + " is out of range; a weight is 1-100");
                    weight = null;
                }
            }
            LabelSelector preference = null;
            if (entry.get("preference") == null) {
                scope.error(entryPath + ".preference is required (a label selector of preferred nodes)");
            } else {
                preference = LabelSelectorParser.selector(scope, entryPath + ".preference", entry.get("preference"));
            }
            if (weight != null && preference != null) {
                result.add(new PreferredNodeSelector(weight, preference));
            }
        }
        return result;
    }
}

package io.lbk8s.kube;

import io.lbk8s.config.ConfigSources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The configuration objects the controller uses, as it records them in its ConfigurationState
 * ({@code status.acceptedObjects}): the last accepted version of each, so that a restarted controller, a starting
 * speaker and {@code lbk8s status} judge a change exactly as the controller did.
 */
final class AcceptedObjects {
    private AcceptedObjects() {}

    static Map<String, Object> toStatus(ConfigSources accepted) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put(
                "ipAddressPools",
                accepted.ipAddressPools().stream().map(AcceptedObjects::object).toList());
        out.put(
                "l2Advertisements",
                accepted.l2Advertisements().stream()
                        .map(AcceptedObjects::object)
                        .toList());
        out.put(
                "configMaps",
                accepted.configMaps().stream().map(AcceptedObjects::configMap).toList());
        // BGP kinds only when there are some, so that a layer-2 record reads as it did before BGP
        putIfAny(out, "bgpPeers", accepted.bgpPeers());
        putIfAny(out, "bgpAdvertisements", accepted.bgpAdvertisements());
        putIfAny(out, "communities", accepted.communities());
        putIfAny(out, "bfdProfiles", accepted.bfdProfiles());
        return out;
    }

    /** Empty when nothing was recorded or the record is not in the shape {@link #toStatus} writes. */
    static Optional<ConfigSources> fromStatus(Object recorded) {
        if (!(recorded instanceof Map<?, ?> map)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ConfigSources(
                    objects(map.get("ipAddressPools")),
                    objects(map.get("l2Advertisements")),
                    list(map.get("configMaps")).stream()
                            .map(c -> new ConfigSources.RawConfigMap(
                                    text(c, "namespace"), text(c, "name"), text(c, "configYaml"), text(c, "createdAt")))
                            .toList(),
                    objects(map.get("bgpPeers")),
                    objects(map.get("bgpAdvertisements")),
                    objects(map.get("communities")),
                    objects(map.get("bfdProfiles"))));
        } catch (ClassCastException | NullPointerException e) {
            return Optional.empty();
        }
    }

    private static void putIfAny(Map<String, Object> out, String key, List<ConfigSources.RawObject> objects) {
        if (!objects.isEmpty()) {
            out.put(key, objects.stream().map(AcceptedObjects::object).toList());
        }
    }

    private static Map<String, Object> object(ConfigSources.RawObject o) {
        return entry(o.namespace(), o.name(), Map.of("labels", o.labels()), "spec", o.spec(), o.createdAt());
    }

    private static Map<String, Object> configMap(ConfigSources.RawConfigMap c) {
        return entry(c.namespace(), c.name(), Map.of(), "configYaml", c.configYaml(), c.createdAt());
    }

    /** One recorded object: its identity, its other fields, its content unless that is absent (null), its creation. */
    private static Map<String, Object> entry(
            String namespace,
            String name,
            Map<String, Object> fields,
            String contentKey,
            Object content,
            String createdAt) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("namespace", namespace);
        map.put("name", name);
        map.putAll(fields);
        if (content != null) {
            map.put(contentKey, content);
        }
        map.put("createdAt", createdAt);
        return map;
    }

    @SuppressWarnings("unchecked")
    private static List<ConfigSources.RawObject> objects(Object value) {
        return list(value).stream()
                .map(o -> new ConfigSources.RawObject(
                        text(o, "namespace"),
                        text(o, "name"),
                        (Map<String, String>) o.getOrDefault("labels", Map.of()),
                        o.get("spec"),
                        text(o, "createdAt")))
                .toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return value == null ? List.of() : (List<Map<String, Object>>) value;
    }

    private static String text(Map<String, Object> map, String key) {
        return (String) map.get(key);
    }
}

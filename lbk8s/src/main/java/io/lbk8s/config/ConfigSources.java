package io.lbk8s.config;

import java.util.List;
import java.util.Map;

/**
 * The raw inputs of the configuration, as the API server holds them, before any validation: custom resources as
 * plain maps (so a malformed one is a problem to report, not an exception in a typed informer) and the lbk8s
 * ConfigMap's {@code config.yaml} text.
 */
public record ConfigSources(
        List<RawObject> ipAddressPools,
        List<RawObject> l2Advertisements,
        List<RawConfigMap> configMaps,
        List<RawObject> bgpPeers,
        List<RawObject> bgpAdvertisements,
        List<RawObject> communities,
        List<RawObject> bfdProfiles) {

    public ConfigSources {
        ipAddressPools = List.copyOf(ipAddressPools);
        l2Advertisements = List.copyOf(l2Advertisements);
        configMaps = List.copyOf(configMaps);
        bgpPeers = List.copyOf(bgpPeers);
        bgpAdvertisements = List.copyOf(bgpAdvertisements);
        communities = List.copyOf(communities);
        bfdProfiles = List.copyOf(bfdProfiles);
    }

    /** Layer-2 sources only. */
    public ConfigSources(
            List<RawObject> ipAddressPools, List<RawObject> l2Advertisements, List<RawConfigMap> configMaps) {
        this(ipAddressPools, l2Advertisements, configMaps, List.of(), List.of(), List.of(), List.of());
    }

    /**
     * A custom resource: its identity, its labels, its {@code spec} as parsed JSON (maps, lists, scalars) and its
     * {@code metadata.creationTimestamp} (RFC 3339 as the API writes it, so text order is time order; empty when
     * unknown), which decides which of two conflicting objects came first.
     */
    public record RawObject(String namespace, String name, Map<String, String> labels, Object spec, String createdAt) {
        public RawObject {
            labels = Map.copyOf(labels);
            createdAt = createdAt == null ? "" : createdAt;
        }

        public RawObject(String namespace, String name, Map<String, String> labels, Object spec) {
            this(namespace, name, labels, spec, "");
        }
    }

    /** The lbk8s ConfigMap: its identity, the text of its {@code config.yaml} key (null when absent), its creation time. */
    public record RawConfigMap(String namespace, String name, String configYaml, String createdAt) {
        public RawConfigMap {
            createdAt = createdAt == null ? "" : createdAt;
        }

        public RawConfigMap(String namespace, String name, String configYaml) {
            this(namespace, name, configYaml, "");
        }
    }
}

package io.lbk8s.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Test helper: turns Kubernetes manifests (multi-document YAML, as {@code kubectl apply -f} takes them) into
 * {@link ConfigSources}, the way the controller would see them. Usage:
 *
 * <pre>{@code
 * ConfigSources sources = Fixtures.load("homelab-pool.yaml");          // src/test/resources/fixtures/homelab-pool.yaml
 * ConfigSources inline  = Fixtures.fromYaml("""
 *         apiVersion: metallb.io/v1beta1
 *         kind: IPAddressPool
 *         metadata: {name: a, namespace: metallb-system}
 *         spec: {addresses: [10.0.0.0/24]}
 *         """);
 * ConfigSources both = Fixtures.combine(sources, inline);
 * ConfigResult result = ConfigParser.parse(sources);
 * }</pre>
 *
 * <p>Understood documents: {@code metallb.io/v1beta1} {@code IPAddressPool}, {@code L2Advertisement},
 * {@code BGPAdvertisement}, {@code Community} and {@code BFDProfile}, {@code metallb.io/v1beta2} {@code BGPPeer} (their
 * {@code spec} is passed on exactly as written, maps/lists/scalars, so malformed specs reach the parser), and
 * {@code v1} {@code ConfigMap} (its {@code data."config.yaml"} text, null when absent). Empty documents are skipped;
 * anything else throws {@link IllegalArgumentException}, since a fixture the helper cannot read is a broken test. A
 * missing namespace means {@code default}, as with kubectl.
 */
public final class Fixtures {
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // we read document after document
            .build();

    private Fixtures() {}

    /**
     * Loads a fixture from the test class path: {@code name} is a file under {@code src/test/resources/fixtures/}
     * ({@code "openstack-ingress.yaml"}), or an absolute resource path ({@code "/other/dir/x.yaml"}).
     */
    public static ConfigSources load(String resourceName) {
        String path = resourceName.startsWith("/") ? resourceName : "/fixtures/" + resourceName;
        try (InputStream in = Fixtures.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + path);
            }
            return fromYaml(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses manifests given as text (one or more YAML documents separated by {@code ---}). */
    public static ConfigSources fromYaml(String manifests) {
        List<ConfigSources.RawObject> pools = new ArrayList<>();
        List<ConfigSources.RawObject> advertisements = new ArrayList<>();
        List<ConfigSources.RawConfigMap> configMaps = new ArrayList<>();
        List<ConfigSources.RawObject> bgpPeers = new ArrayList<>();
        List<ConfigSources.RawObject> bgpAdvertisements = new ArrayList<>();
        List<ConfigSources.RawObject> communities = new ArrayList<>();
        List<ConfigSources.RawObject> bfdProfiles = new ArrayList<>();
        List<Object> documents = new ArrayList<>();
        try (JsonParser parser = YAML.createParser(manifests)) {
            while (parser.nextToken() != null) {
                documents.add(YAML.readValue(parser, Object.class)); // not readValues: it would unwrap a top-level list
            }
        }
        for (Object document : documents) {
            if (document == null) {
                continue;
            }
            if (!(document instanceof Map<?, ?> manifest)) {
                throw new IllegalArgumentException("a manifest must be a map, got: " + document);
            }
            String apiVersion = String.valueOf(manifest.get("apiVersion"));
            String kind = String.valueOf(manifest.get("kind"));
            Map<?, ?> metadata = manifest.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
            String name = metadata.get("name") == null ? null : String.valueOf(metadata.get("name"));
            String namespace =
                    metadata.get("namespace") == null ? "default" : String.valueOf(metadata.get("namespace"));
            String createdAt =
                    metadata.get("creationTimestamp") == null ? "" : String.valueOf(metadata.get("creationTimestamp"));
            Map<String, List<ConfigSources.RawObject>> customResources = Map.of(
                    "metallb.io/v1beta1 IPAddressPool", pools,
                    "metallb.io/v1beta1 L2Advertisement", advertisements,
                    "metallb.io/v1beta2 BGPPeer", bgpPeers,
                    "metallb.io/v1beta1 BGPAdvertisement", bgpAdvertisements,
                    "metallb.io/v1beta1 Community", communities,
                    "metallb.io/v1beta1 BFDProfile", bfdProfiles);
            List<ConfigSources.RawObject> ofKind = customResources.get(apiVersion + " " + kind);
            if (ofKind != null) {
                ofKind.add(new ConfigSources.RawObject(
                        namespace, name, labels(metadata), manifest.get("spec"), createdAt));
            } else if ((apiVersion + " " + kind).equals("v1 ConfigMap")) {
                Map<?, ?> data = manifest.get("data") instanceof Map<?, ?> d ? d : Map.of();
                Object text = data.get("config.yaml");
                configMaps.add(new ConfigSources.RawConfigMap(
                        namespace, name, text == null ? null : String.valueOf(text), createdAt));
            } else {
                throw new IllegalArgumentException("unsupported manifest " + apiVersion + " " + kind);
            }
        }
        return new ConfigSources(
                pools, advertisements, configMaps, bgpPeers, bgpAdvertisements, communities, bfdProfiles);
    }

    /** All the objects of several sources together, in the order given. */
    public static ConfigSources combine(ConfigSources... sources) {
        List<ConfigSources.RawObject> pools = new ArrayList<>();
        List<ConfigSources.RawObject> advertisements = new ArrayList<>();
        List<ConfigSources.RawConfigMap> configMaps = new ArrayList<>();
        List<ConfigSources.RawObject> bgpPeers = new ArrayList<>();
        List<ConfigSources.RawObject> bgpAdvertisements = new ArrayList<>();
        List<ConfigSources.RawObject> communities = new ArrayList<>();
        List<ConfigSources.RawObject> bfdProfiles = new ArrayList<>();
        for (ConfigSources source : sources) {
            pools.addAll(source.ipAddressPools());
            advertisements.addAll(source.l2Advertisements());
            configMaps.addAll(source.configMaps());
            bgpPeers.addAll(source.bgpPeers());
            bgpAdvertisements.addAll(source.bgpAdvertisements());
            communities.addAll(source.communities());
            bfdProfiles.addAll(source.bfdProfiles());
        }
        return new ConfigSources(
                pools, advertisements, configMaps, bgpPeers, bgpAdvertisements, communities, bfdProfiles);
    }

    private static Map<String, String> labels(Map<?, ?> metadata) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (metadata.get("labels") instanceof Map<?, ?> raw) {
            raw.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
        }
        return labels;
    }
}

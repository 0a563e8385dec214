package io.lbk8s.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.config.ConfigFields.Field;
import io.lbk8s.config.ConfigFields.FieldType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Keeps deploy/crds and {@link ConfigParser} from drifting apart: every field the parser reads is in the CRD schema
 * with the type the parser expects, every spec field of the schema is one the parser knows, and the user fixtures
 * are structurally valid against the schema (types, required fields, no field the API server would prune).
 */
class CrdSchemaTest {
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static Map<String, Object> crd(String file) {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("deploy/crds"))) {
            dir = dir.getParent();
        }
        assertThat(dir)
                .as("deploy/crds above " + System.getProperty("user.dir"))
                .isNotNull();
        try {
            List<Object> documents =
                    documents(Files.readString(dir.resolve("deploy/crds").resolve(file)));
            assertThat(documents).as(file + " holds one document").hasSize(1);
            return map(documents.getFirst());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Object> documents(String text) {
        List<Object> documents = new ArrayList<>();
        try (JsonParser parser = YAML.createParser(text)) {
            while (parser.nextToken() != null) {
                Object document = YAML.readValue(parser, Object.class);
                if (document != null) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        assertThat(value).isInstanceOf(List.class);
        return (List<Object>) value;
    }

    static Map<String, Object> at(Map<String, Object> node, String... keys) {
        Map<String, Object> current = node;
        for (String key : keys) {
            assertThat(current).as("path " + String.join(".", keys)).containsKey(key);
            current = map(current.get(key));
        }
        return current;
    }

    static Map<String, Object> version(Map<String, Object> crd) {
        List<Object> versions = list(at(crd, "spec").get("versions"));
        assertThat(versions).hasSize(1);
        return map(versions.getFirst());
    }

    static Map<String, Object> schema(String file) {
        return at(storageVersion(crd(file)), "schema", "openAPIV3Schema");
    }

    /** The version the API server stores: the only one, except BGPPeer's (v1beta2, beside a deprecated v1beta1). */
    static Map<String, Object> storageVersion(Map<String, Object> crd) {
        return list(at(crd, "spec").get("versions")).stream()
                .map(CrdSchemaTest::map)
                .filter(v -> Boolean.TRUE.equals(v.get("storage")))
                .findFirst()
                .orElseThrow();
    }

    static final String POOLS = "metallb.io_ipaddresspools.yaml";
    static final String L2 = "metallb.io_l2advertisements.yaml";
    static final String BGP_PEERS = "metallb.io_bgppeers.yaml";
    static final String BGP_ADVERTISEMENTS = "metallb.io_bgpadvertisements.yaml";
    static final String COMMUNITIES = "metallb.io_communities.yaml";
    static final String BFD_PROFILES = "metallb.io_bfdprofiles.yaml";

    // --- identity, names, printer columns --------------------------------------------------------------------------

    static Stream<Arguments> identities() {
        return Stream.of(
                argumentSet(
                        "IPAddressPool",
                        POOLS,
                        "ipaddresspools.metallb.io",
                        "IPAddressPool",
                        "ipaddresspools",
                        "ipaddresspool",
                        List.of(
                                "Auto Assign boolean .spec.autoAssign",
                                "Avoid Buggy IPs boolean .spec.avoidBuggyIPs",
                                "Addresses string .spec.addresses")),
                argumentSet(
                        "L2Advertisement",
                        L2,
                        "l2advertisements.metallb.io",
                        "L2Advertisement",
                        "l2advertisements",
                        "l2advertisement",
                        List.of(
                                "IPAddressPools string .spec.ipAddressPools",
                                        "IPAddressPool Selectors string .spec.ipAddressPoolSelectors",
                                "Interfaces string .spec.interfaces", "Node Selectors string .spec.nodeSelectors")),
                argumentSet(
                        "BGPAdvertisement",
                        BGP_ADVERTISEMENTS,
                        "bgpadvertisements.metallb.io",
                        "BGPAdvertisement",
                        "bgpadvertisements",
                        "bgpadvertisement",
                        List.of(
                                "IPAddressPools string .spec.ipAddressPools",
                                "IPAddressPool Selectors string .spec.ipAddressPoolSelectors",
                                "Peers string .spec.peers",
                                "Node Selectors string .spec.nodeSelectors")),
                argumentSet(
                        "BFDProfile",
                        BFD_PROFILES,
                        "bfdprofiles.metallb.io",
                        "BFDProfile",
                        "bfdprofiles",
                        "bfdprofile",
                        List.of(
                                "Passive Mode boolean .spec.passiveMode",
                                "Transmit Interval integer .spec.transmitInterval",
                                "Receive Interval integer .spec.receiveInterval",
                                "Multiplier integer .spec.detectMultiplier")));
    }

    @ParameterizedTest
    @MethodSource("identities")
    void isMetalLbsResource(
            String file, String name, String kind, String plural, String singular, List<String> columns) {
        Map<String, Object> crd = crd(file);
        assertThat(crd)
                .containsEntry("apiVersion", "apiextensions.k8s.io/v1")
                .containsEntry("kind", "CustomResourceDefinition");
        assertThat(at(crd, "metadata")).containsEntry("name", name);
        Map<String, Object> spec = at(crd, "spec");
        assertThat(spec).containsEntry("group", "metallb.io").containsEntry("scope", "Namespaced");
        assertThat(at(spec, "names"))
                .containsEntry("kind", kind)
                .containsEntry("plural", plural)
                .containsEntry("singular", singular)
                .containsEntry("listKind", kind + "List")
                .doesNotContainKey("shortNames"); // MetalLB defines none
        Map<String, Object> version = version(crd);
        assertThat(version)
                .containsEntry("name", "v1beta1")
                .containsEntry("served", true)
                .containsEntry("storage", true);
        assertThat(at(version, "subresources")).containsKey("status");
        assertThat(list(version.get("additionalPrinterColumns")))
                .map(c -> {
                    Map<String, Object> column = map(c);
                    return column.get("name") + " " + column.get("type") + " " + column.get("jsonPath");
                })
                .containsExactlyElementsOf(columns);
        assertThat(at(version, "schema", "openAPIV3Schema")).containsEntry("type", "object");
    }

    // --- parser fields ⇄ schema --------------------------------------------------------------------------------------

    static Stream<Arguments> fieldTables() {
        return Stream.of(
                argumentSet("IPAddressPool spec", POOLS, List.of("spec"), ConfigFields.POOL_SPEC_FIELDS),
                argumentSet(
                        "IPAddressPool spec.serviceAllocation",
                        POOLS,
                        List.of("spec", "serviceAllocation"),
                        ConfigFields.SERVICE_ALLOCATION_FIELDS),
                argumentSet(
                        "L2Advertisement spec",
                        L2,
                        List.of("spec"),
                        concat(ConfigFields.L2_SPEC_FIELDS, ConfigFields.L2_REFUSED_FIELDS)),
                argumentSet("BGPPeer spec", BGP_PEERS, List.of("spec"), ConfigFields.BGP_PEER_KNOWN_FIELDS),
                argumentSet(
                        "BGPPeer spec.passwordSecret",
                        BGP_PEERS,
                        List.of("spec", "passwordSecret"),
                        ConfigFields.SECRET_REFERENCE_FIELDS),
                argumentSet(
                        "BGPAdvertisement spec",
                        BGP_ADVERTISEMENTS,
                        List.of("spec"),
                        ConfigFields.BGP_ADVERTISEMENT_KNOWN_FIELDS),
                argumentSet("Community spec", COMMUNITIES, List.of("spec"), ConfigFields.COMMUNITY_SPEC_FIELDS),
                argumentSet("BFDProfile spec", BFD_PROFILES, List.of("spec"), ConfigFields.BFD_PROFILE_SPEC_FIELDS));
    }

    /**
     * MetalLB serves BGPPeer at v1beta1 and v1beta2 and stores v1beta2, converting with a webhook; lbk8s has none, so
     * the API server only relabels, and both versions must have the same schema for an object to read alike.
     */
    @Test
    void bgpPeerServesBothVersionsWithOneSchemaAndStoresV1beta2() {
        List<Map<String, Object>> versions = list(at(crd(BGP_PEERS), "spec").get("versions")).stream()
                .map(CrdSchemaTest::map)
                .toList();
        assertThat(versions)
                .map(v -> v.get("name") + " served=" + v.get("served") + " storage=" + v.get("storage") + " deprecated="
                        + v.getOrDefault("deprecated", false))
                .containsExactly(
                        "v1beta1 served=true storage=false deprecated=true",
                        "v1beta2 served=true storage=true deprecated=false");
        assertThat(versions.get(0).get("schema")).isEqualTo(versions.get(1).get("schema"));
        assertThat(at(crd(BGP_PEERS), "spec")).doesNotContainKey("conversion"); // None: no webhook to run
    }

    @Test
    void communityAliasesHoldANameAndAValue() {
        Map<String, Object> items = at(schema(COMMUNITIES), "properties", "spec", "properties", "communities", "items");
        assertFields("communities[]", at(items, "properties"), ConfigFields.COMMUNITY_ALIAS_FIELDS);
    }

    /** Exactly the parser's fields, each with the parser's type: nothing the parser misses, nothing it reads in vain. */
    @ParameterizedTest
    @MethodSource("fieldTables")
    void schemaHasExactlyTheParsersFields(String file, List<String> path, List<Field> fields) {
        Map<String, Object> node = schema(file);
        for (String key : path) {
            node = at(node, "properties", key);
        }
        Map<String, Object> properties = at(node, "properties");
        assertThat(new TreeSet<>(properties.keySet()))
                .containsExactlyElementsOf(
                        new TreeSet<>(fields.stream().map(Field::name).toList()));
        for (Field field : fields) {
            assertType(
                    file + " " + String.join(".", path) + "." + field.name(),
                    map(properties.get(field.name())),
                    field.type());
        }
    }

    static void assertType(String where, Map<String, Object> node, FieldType type) {
        switch (type) {
            case STRING -> assertThat(node.get("type")).as(where).isEqualTo("string");
            case BOOLEAN -> assertThat(node.get("type")).as(where).isEqualTo("boolean");
            case INTEGER -> assertThat(node.get("type")).as(where).isEqualTo("integer");
            case OBJECT -> assertThat(node.get("type")).as(where).isEqualTo("object");
            case STRING_MAP -> {
                assertThat(node.get("type")).as(where).isEqualTo("object");
                assertThat(at(node, "additionalProperties")).as(where).containsEntry("type", "string");
            }
            case STRING_LIST -> {
                assertThat(node.get("type")).as(where).isEqualTo("array");
                assertThat(at(node, "items")).as(where).containsEntry("type", "string");
            }
            case OBJECT_LIST -> {
                assertThat(node.get("type")).as(where).isEqualTo("array");
                assertThat(at(node, "items")).as(where).containsEntry("type", "object");
            }
            case REQUIREMENT_LIST -> {
                assertThat(node.get("type")).as(where).isEqualTo("array");
                Map<String, Object> items = at(node, "items");
                assertThat(items).as(where).containsEntry("type", "object");
                assertThat(list(items.get("required"))).as(where).containsExactlyInAnyOrder("key", "operator");
                assertFields(where, at(items, "properties"), ConfigFields.REQUIREMENT_FIELDS);
            }
            case SELECTOR_LIST -> {
                assertThat(node.get("type")).as(where).isEqualTo("array");
                Map<String, Object> items = at(node, "items");
                assertThat(items).as(where).containsEntry("type", "object");
                assertFields(where + "[]", at(items, "properties"), ConfigFields.SELECTOR_FIELDS);
            }
        }
    }

    static void assertFields(String where, Map<String, Object> properties, List<Field> fields) {
        assertThat(new TreeSet<>(properties.keySet()))
                .as(where)
                .containsExactlyElementsOf(
                        new TreeSet<>(fields.stream().map(Field::name).toList()));
        for (Field field : fields) {
            assertType(where + "." + field.name(), map(properties.get(field.name())), field.type());
        }
    }

    @Test
    void preferredNodeSelectorsItemsHoldASelector() {
        Map<String, Object> items =
                at(schema(L2), "properties", "spec", "properties", "preferredNodeSelectors", "items");
        assertThat(list(items.get("required"))).containsExactlyInAnyOrder("preference", "weight");
        assertFields("preference", at(items, "properties", "preference", "properties"), ConfigFields.SELECTOR_FIELDS);
        assertThat(at(items, "properties", "weight")).containsEntry("type", "integer");
    }

    @Test
    void defaultsAndRequiredMatchTheParser() {
        Map<String, Object> pool = schema(POOLS);
        assertThat(list(pool.get("required"))).containsExactly("spec");
        Map<String, Object> spec = at(pool, "properties", "spec");
        assertThat(list(spec.get("required"))).containsExactly("addresses");
        assertThat(at(spec, "properties", "autoAssign")).containsEntry("default", true);
        assertThat(at(spec, "properties", "avoidBuggyIPs")).containsEntry("default", false);
        // and the parser applies the same defaults when the fields are absent
        AddressPool parsed = ConfigParser.parse(Fixtures.load("openstack-ingress.yaml"))
                .config()
                .pools()
                .getFirst();
        assertThat(parsed.autoAssign()).isTrue();
        assertThat(parsed.avoidBuggyIPs()).isFalse();
        assertThat(list(at(pool, "properties", "status").get("required")))
                .containsExactlyInAnyOrder("assignedIPv4", "assignedIPv6", "availableIPv4", "availableIPv6");
    }

    @Test
    void configMapPoolIsAnIPAddressPoolSpecWithAName() {
        assertThat(ConfigFields.CONFIGMAP_POOL_FIELDS.getFirst()).isEqualTo(new Field("name", FieldType.STRING));
        assertThat(ConfigFields.CONFIGMAP_POOL_FIELDS.subList(1, ConfigFields.CONFIGMAP_POOL_FIELDS.size()))
                .isEqualTo(ConfigFields.POOL_SPEC_FIELDS);
    }

    // --- fixtures against the schema ---------------------------------------------------------------------------------

    static Stream<Arguments> fixtures() {
        return Stream.of(
                argumentSet("openstack-ingress.yaml", "openstack-ingress.yaml", 2),
                argumentSet("proxmox-ingress.yaml", "proxmox-ingress.yaml", 2),
                argumentSet("homelab-pool.yaml", "homelab-pool.yaml", 2),
                argumentSet("lbk8s-configmap.yaml", "lbk8s-configmap.yaml", 1));
    }

    /**
     * Each custom resource validates against its CRD; the ConfigMap's pools (without their name) validate against
     * the IPAddressPool spec schema, since a ConfigMap pool is exactly that.
     */
    @ParameterizedTest
    @MethodSource("fixtures")
    void fixtureValidatesStructurally(String resource, int checkedObjects) {
        int checked = 0;
        for (Object document : documents(resource(resource))) {
            Map<String, Object> manifest = map(document);
            String kind = String.valueOf(manifest.get("kind"));
            List<String> errors = new ArrayList<>();
            switch (kind) {
                case "IPAddressPool" -> SchemaCheck.check(schema(POOLS), manifest, "", errors);
                case "L2Advertisement" -> SchemaCheck.check(schema(L2), manifest, "", errors);
                case "ConfigMap" -> {
                    Object text = at(manifest, "data").get("config.yaml");
                    Map<String, Object> config =
                            map(documents(String.valueOf(text)).getFirst());
                    Map<String, Object> specSchema = at(schema(POOLS), "properties", "spec");
                    for (Object item : list(config.get("pools"))) {
                        Map<String, Object> pool = new java.util.LinkedHashMap<>(map(item));
                        assertThat(pool.remove("name")).isInstanceOf(String.class);
                        SchemaCheck.check(specSchema, pool, "pools[]", errors);
                    }
                }
                default -> throw new AssertionError("unexpected kind " + kind);
            }
            assertThat(errors).as(resource + " " + kind).isEmpty();
            checked++;
        }
        assertThat(checked).isEqualTo(checkedObjects);
        assertThat(ConfigParser.parse(Fixtures.load(resource)).problems()).isEmpty();
    }

    /** The checker itself finds what it should, or the test above would prove nothing. */
    static Stream<Arguments> invalidManifests() {
        return Stream.of(
                argumentSet(
                        "addresses as a string",
                        POOLS,
                        "spec: {addresses: 10.0.0.0/24}",
                        List.of("spec.addresses: expected array, got String")),
                argumentSet("spec missing", POOLS, "metadata: {name: p}", List.of(": required field spec is missing")),
                argumentSet(
                        "addresses missing, autoAssign a string",
                        POOLS,
                        "spec: {autoAssign: 'yes'}",
                        List.of(
                                "spec: required field addresses is missing",
                                "spec.autoAssign: expected boolean, got String")),
                argumentSet(
                        "pruned field",
                        POOLS,
                        "spec: {addresses: [10.0.0.0/24], autoassign: false}",
                        List.of("spec.autoassign: unknown field (the API server would prune it)")),
                argumentSet(
                        "priority a fraction",
                        POOLS,
                        "spec: {addresses: [10.0.0.0/24], serviceAllocation: {priority: 1.5}}",
                        List.of("spec.serviceAllocation.priority: expected integer, got Double")),
                argumentSet(
                        "requirement without operator",
                        L2,
                        "spec: {nodeSelectors: [{matchExpressions: [{key: a}]}]}",
                        List.of("spec.nodeSelectors[0].matchExpressions[0]: required field operator is missing")),
                argumentSet(
                        "matchLabels value not a string",
                        L2,
                        "spec: {ipAddressPoolSelectors: [{matchLabels: {a: 1}}]}",
                        List.of("spec.ipAddressPoolSelectors[0].matchLabels.a: expected string, got Integer")));
    }

    @ParameterizedTest
    @MethodSource("invalidManifests")
    void checkerFindsStructuralErrors(String file, String manifest, List<String> expected) {
        List<String> errors = new ArrayList<>();
        SchemaCheck.check(schema(file), map(documents(manifest).getFirst()), "", errors);
        assertThat(errors).containsExactlyElementsOf(expected);
    }

    static String resource(String name) {
        try (InputStream in = CrdSchemaTest.class.getResourceAsStream("/fixtures/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SafeVarargs
    static <T> List<T> concat(List<T>... lists) {
        List<T> all = new ArrayList<>();
        for (List<T> list : lists) {
            all.addAll(list);
        }
        return all;
    }

    /** A small structural validator: type, required, properties (unknown = pruned), items, additionalProperties. */
    static final class SchemaCheck {
        static void check(Map<String, Object> schema, Object value, String path, List<String> errors) {
            String type = String.valueOf(schema.get("type"));
            boolean ok = switch (type) {
                case "object" -> value instanceof Map;
                case "array" -> value instanceof List;
                case "string" -> value instanceof String;
                case "boolean" -> value instanceof Boolean;
                case "integer" ->
                    value instanceof Integer || value instanceof Long || value instanceof java.math.BigInteger;
                default -> true;
            };
            if (!ok) {
                errors.add(path + ": expected " + type + ", got "
                        + (value == null ? "null" : value.getClass().getSimpleName()));
                return;
            }
            if (value instanceof Map<?, ?> object) {
                if (schema.get("required") instanceof List<?> required) {
                    for (Object field : required) {
                        if (!object.containsKey(field)) {
                            errors.add(path + ": required field " + field + " is missing");
                        }
                    }
                }
                Map<?, ?> properties = schema.get("properties") instanceof Map<?, ?> p ? p : null;
                Map<?, ?> additional = schema.get("additionalProperties") instanceof Map<?, ?> a ? a : null;
                boolean openObject = properties == null && additional == null; // e.g. metadata: {type: object}
                for (var entry : object.entrySet()) {
                    String child = (path.isEmpty() ? "" : path + ".") + entry.getKey();
                    if (properties != null && properties.get(entry.getKey()) instanceof Map<?, ?> childSchema) {
                        check(cast(childSchema), entry.getValue(), child, errors);
                    } else if (additional != null) {
                        check(cast(additional), entry.getValue(), child, errors);
                    } else if (!openObject) {
                        errors.add(child + ": unknown field (the API server would prune it)");
                    }
                }
            }
            if (value instanceof List<?> array && schema.get("items") instanceof Map<?, ?> items) {
                for (int i = 0; i < array.size(); i++) {
                    check(cast(items), array.get(i), path + "[" + i + "]", errors);
                }
            }
        }

        @SuppressWarnings("unchecked")
        private static Map<String, Object> cast(Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
    }
}

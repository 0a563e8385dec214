package io.lbk8s.config;

import java.util.List;
import java.util.stream.Stream;

/**
 * The fields the parser reads, object by object, with the JSON type it expects; a field not listed is ignored with a
 * warning. {@code CrdSchemaTest} checks these tables against deploy/crds.
 */
final class ConfigFields {
    private ConfigFields() {}

    /** JSON types of the fields. */
    enum FieldType {
        STRING,
        BOOLEAN,
        INTEGER,
        OBJECT,
        STRING_LIST,
        SELECTOR_LIST,
        STRING_MAP,
        REQUIREMENT_LIST,
        OBJECT_LIST
    }

    /** A field the parser reads, with the JSON type it expects. */
    record Field(String name, FieldType type) {}

    static final List<Field> POOL_SPEC_FIELDS = List.of(
            new Field("addresses", FieldType.STRING_LIST),
            new Field("autoAssign", FieldType.BOOLEAN),
            new Field("avoidBuggyIPs", FieldType.BOOLEAN),
            new Field("serviceAllocation", FieldType.OBJECT));

    static final List<Field> SERVICE_ALLOCATION_FIELDS = List.of(
            new Field("priority", FieldType.INTEGER),
            new Field("namespaces", FieldType.STRING_LIST),
            new Field("namespaceSelectors", FieldType.SELECTOR_LIST),
            new Field("serviceSelectors", FieldType.SELECTOR_LIST));

    static final List<Field> L2_SPEC_FIELDS = List.of(
            new Field("ipAddressPools", FieldType.STRING_LIST),
            new Field("ipAddressPoolSelectors", FieldType.SELECTOR_LIST),
            new Field("nodeSelectors", FieldType.SELECTOR_LIST),
            new Field("preferredNodeSelectors", FieldType.OBJECT_LIST),
            new Field("interfaces", FieldType.STRING_LIST));

    static final List<Field> PREFERRED_NODE_SELECTOR_FIELDS =
            List.of(new Field("weight", FieldType.INTEGER), new Field("preference", FieldType.OBJECT));

    /** L2Advertisement fields MetalLB has and lbk8s does not implement: ignoring them would change who announces what. */
    static final List<Field> L2_REFUSED_FIELDS = List.of(new Field("serviceSelectors", FieldType.SELECTOR_LIST));

    static final List<Field> SELECTOR_FIELDS = List.of(
            new Field("matchLabels", FieldType.STRING_MAP), new Field("matchExpressions", FieldType.REQUIREMENT_LIST));

    static final List<Field> REQUIREMENT_FIELDS = List.of(
            new Field("key", FieldType.STRING),
            new Field("operator", FieldType.STRING),
            new Field("values", FieldType.STRING_LIST));

    /** A ConfigMap pool: a name, then the same fields as an IPAddressPool spec. */
    static final List<Field> CONFIGMAP_POOL_FIELDS = Stream.concat(
                    Stream.of(new Field("name", FieldType.STRING)), POOL_SPEC_FIELDS.stream())
            .toList();

    static final List<Field> CONFIGMAP_FIELDS = List.of(new Field("pools", FieldType.OBJECT_LIST));

    /** The L2Advertisement spec fields the parser knows, those it reads and those it refuses. */
    static final List<Field> L2_KNOWN_FIELDS =
            Stream.concat(L2_SPEC_FIELDS.stream(), L2_REFUSED_FIELDS.stream()).toList();
}

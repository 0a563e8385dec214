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

    static final List<Field> BGP_PEER_SPEC_FIELDS = List.of(
            new Field("myASN", FieldType.INTEGER),
            new Field("peerASN", FieldType.INTEGER),
            new Field("dynamicASN", FieldType.STRING),
            new Field("peerAddress", FieldType.STRING),
            new Field("sourceAddress", FieldType.STRING),
            new Field("peerPort", FieldType.INTEGER),
            new Field("holdTime", FieldType.STRING),
            new Field("keepaliveTime", FieldType.STRING),
            new Field("connectTime", FieldType.STRING),
            new Field("routerID", FieldType.STRING),
            new Field("nodeSelectors", FieldType.SELECTOR_LIST),
            new Field("password", FieldType.STRING),
            new Field("passwordSecret", FieldType.OBJECT),
            new Field("bfdProfile", FieldType.STRING),
            new Field("ebgpMultiHop", FieldType.BOOLEAN),
            new Field("enableGracefulRestart", FieldType.BOOLEAN),
            new Field("dualStackAddressFamily", FieldType.BOOLEAN),
            new Field("disableMP", FieldType.BOOLEAN));

    /**
     * BGPPeer fields of MetalLB's FRR mode that lbk8s does not implement: ignoring them would peer from the wrong
     * place (another VRF) or with nobody (unnumbered peering has no peerAddress).
     */
    static final List<Field> BGP_PEER_REFUSED_FIELDS =
            List.of(new Field("interface", FieldType.STRING), new Field("vrf", FieldType.STRING));

    static final List<Field> BGP_PEER_KNOWN_FIELDS = Stream.concat(
                    BGP_PEER_SPEC_FIELDS.stream(), BGP_PEER_REFUSED_FIELDS.stream())
            .toList();

    /** A Kubernetes SecretReference, as BGPPeer's passwordSecret holds it. */
    static final List<Field> SECRET_REFERENCE_FIELDS =
            List.of(new Field("name", FieldType.STRING), new Field("namespace", FieldType.STRING));

    static final List<Field> BGP_ADVERTISEMENT_SPEC_FIELDS = List.of(
            new Field("aggregationLength", FieldType.INTEGER),
            new Field("aggregationLengthV6", FieldType.INTEGER),
            new Field("localPref", FieldType.INTEGER),
            new Field("communities", FieldType.STRING_LIST),
            new Field("ipAddressPools", FieldType.STRING_LIST),
            new Field("ipAddressPoolSelectors", FieldType.SELECTOR_LIST),
            new Field("nodeSelectors", FieldType.SELECTOR_LIST),
            new Field("peers", FieldType.STRING_LIST));

    /** BGPAdvertisement fields MetalLB has and lbk8s does not implement, refused as for L2Advertisements. */
    static final List<Field> BGP_ADVERTISEMENT_REFUSED_FIELDS =
            List.of(new Field("serviceSelectors", FieldType.SELECTOR_LIST));

    static final List<Field> BGP_ADVERTISEMENT_KNOWN_FIELDS = Stream.concat(
                    BGP_ADVERTISEMENT_SPEC_FIELDS.stream(), BGP_ADVERTISEMENT_REFUSED_FIELDS.stream())
            .toList();

    static final List<Field> COMMUNITY_SPEC_FIELDS = List.of(new Field("communities", FieldType.OBJECT_LIST));

    static final List<Field> COMMUNITY_ALIAS_FIELDS =
            List.of(new Field("name", FieldType.STRING), new Field("value", FieldType.STRING));

    static final List<Field> BFD_PROFILE_SPEC_FIELDS = List.of(
            new Field("receiveInterval", FieldType.INTEGER),
            new Field("transmitInterval", FieldType.INTEGER),
            new Field("detectMultiplier", FieldType.INTEGER),
            new Field("echoInterval", FieldType.INTEGER),
            new Field("echoMode", FieldType.BOOLEAN),
            new Field("passiveMode", FieldType.BOOLEAN),
            new Field("minimumTtl", FieldType.INTEGER));
}

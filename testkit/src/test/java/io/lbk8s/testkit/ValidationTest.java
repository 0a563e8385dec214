package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * What kube-apiserver (v1.33) answers to objects it refuses, in its own words: 400 for bodies that do not decode
 * into the kind's type, 422 Invalid with field causes for values its validation refuses. Each case is a rule of
 * pkg/apis/core/validation, pkg/apis/discovery/validation or the CRD schema validator; the valid neighbours are
 * created (201). Against the stock mock every refusal is a 201.
 */
class ValidationTest {

    private static final String SERVICES = "/api/v1/namespaces/default/services";
    private static final String SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";
    private static final String POOLS = "/apis/metallb.io/v1beta1/namespaces/default/ipaddresspools";
    private static TestApiServer server;

    /** @param cause the first cause's reason and field, "" for none */
    record Case(String name, String path, String body, int code, String message, String cause) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void start() throws IOException {
        server = TestApiServer.start();
        server.createCrds(Path.of("..", "deploy", "crds"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static List<Case> cases() {
        return List.of(
                refused(
                        "ports written as a map",
                        SERVICES,
                        svc("x", "{\"ports\":{\"port\":80}}"),
                        400,
                        "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal object into Go struct "
                                + "field ServiceSpec.spec.ports of type []v1.ServicePort",
                        ""),
                refused(
                        "a port written as a string",
                        SERVICES,
                        svc("x", "{\"ports\":[{\"port\":\"80\"}]}"),
                        400,
                        "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal string into Go struct "
                                + "field ServicePort.spec.ports.port of type int32",
                        ""),
                refused(
                        "an unknown protocol",
                        SERVICES,
                        svc("x", "{\"ports\":[{\"port\":80,\"protocol\":\"UDPk\"}]}"),
                        422,
                        "Service \"x\" is invalid: spec.ports[0].protocol: Unsupported value: \"UDPk\": supported values: "
                                + "\"SCTP\", \"TCP\", \"UDP\"",
                        "FieldValueNotSupported spec.ports[0].protocol"),
                refused(
                        "no ports",
                        SERVICES,
                        svc("x", "{}"),
                        422,
                        "Service \"x\" is invalid: spec.ports: Required value",
                        "FieldValueRequired spec.ports"),
                created("no ports, headless", SERVICES, svc("headless", "{\"clusterIP\":\"None\"}")),
                created(
                        "no ports, ExternalName",
                        SERVICES,
                        svc("cname", "{\"type\":\"ExternalName\",\"externalName\":\"db.example.com\"}")),
                refused(
                        "ExternalName without a name",
                        SERVICES,
                        svc("x", "{\"type\":\"ExternalName\"}"),
                        422,
                        "Service \"x\" is invalid: spec.externalName: Required value",
                        "FieldValueRequired spec.externalName"),
                refused(
                        "two ports without names",
                        SERVICES,
                        svc("x", "{\"ports\":[{\"port\":80},{\"port\":443}]}"),
                        422,
                        "Service \"x\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]",
                        "FieldValueRequired spec.ports[0].name"),
                refused(
                        "two ports of one name",
                        SERVICES,
                        svc("x", "{\"ports\":[{\"name\":\"http\",\"port\":80},{\"name\":\"http\",\"port\":443}]}"),
                        422,
                        "Service \"x\" is invalid: spec.ports[1].name: Duplicate value: \"http\"",
                        "FieldValueDuplicate spec.ports[1].name"),
                refused(
                        "a port out of range (the defaulted targetPort too)",
                        SERVICES,
                        svc("x", "{\"ports\":[{\"port\":70000}]}"),
                        422,
                        "Service \"x\" is invalid: [spec.ports[0].port: Invalid value: "
                                + "70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be "
                                + "between 1 and 65535, inclusive]",
                        "FieldValueInvalid spec.ports[0].port"),
                refused(
                        "an unknown type",
                        SERVICES,
                        svc("x", "{\"type\":\"Foo\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: spec.type: Unsupported value: \"Foo\": supported values: \"ClusterIP\", "
                                + "\"ExternalName\", \"LoadBalancer\", \"NodePort\"",
                        "FieldValueNotSupported spec.type"),
                refused(
                        "a cluster IP that is no IP",
                        SERVICES,
                        svc("x", "{\"clusterIP\":\"300.1.1.1\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: "
                                + "spec.clusterIPs[0]: Invalid value: \"300.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or "
                                + "2001:db8::ffff)",
                        "FieldValueInvalid spec.clusterIPs[0]"),
                refused(
                        "a loadBalancerClass on a ClusterIP Service",
                        SERVICES,
                        svc("x", "{\"loadBalancerClass\":\"lbk8s.io/l2\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: "
                                + "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
                        "FieldValueForbidden spec.loadBalancerClass"),
                refused(
                        "an unknown externalTrafficPolicy",
                        SERVICES,
                        svc(
                                "x",
                                "{\"type\":\"LoadBalancer\",\"externalTrafficPolicy\":\"Nope\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: spec.externalTrafficPolicy: Unsupported value: \"Nope\": supported values: "
                                + "\"Cluster\", \"Local\"",
                        "FieldValueNotSupported spec.externalTrafficPolicy"),
                refused(
                        "externalTrafficPolicy on a ClusterIP Service",
                        SERVICES,
                        svc("x", "{\"externalTrafficPolicy\":\"Local\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: "
                                + "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible "
                                + "services",
                        "FieldValueInvalid spec.externalTrafficPolicy"),
                refused(
                        "an unknown ipFamilyPolicy",
                        SERVICES,
                        svc("x", "{\"ipFamilyPolicy\":\"Bogus\",\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: "
                                + "spec.ipFamilyPolicy: Unsupported value: \"Bogus\": supported values: \"PreferDualStack\", "
                                + "\"RequireDualStack\", \"SingleStack\"",
                        "FieldValueNotSupported spec.ipFamilyPolicy"),
                refused(
                        "a cluster IP of the other family",
                        SERVICES,
                        svc("x", "{\"clusterIP\":\"10.96.99.99\",\"ipFamilies\":[\"IPv6\"],\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"x\" is invalid: spec.clusterIPs[0]: Invalid value: \"10.96.99.99\": expected an IPv6 value as "
                                + "indicated by `ipFamilies[0]`",
                        "FieldValueInvalid spec.clusterIPs[0]"),
                created(
                        "an IPv6 Service (the cluster is dual-stack)",
                        SERVICES,
                        svc(
                                "v6",
                                "{\"ipFamilies\":[\"IPv6\"],\"ipFamilyPolicy\":\"SingleStack\",\"ports\":[{\"port\":80}]}")),
                refused(
                        "a name that is no DNS-1035 label",
                        SERVICES,
                        svc("Web", "{\"ports\":[{\"port\":80}]}"),
                        422,
                        "Service \"Web\" is invalid: metadata.name: Invalid value: \"Web\": a DNS-1035 label must consist of lower "
                                + "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
                                + "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
                                + "'[a-z]([-a-z0-9]*[a-z0-9])?')",
                        "FieldValueInvalid metadata.name"),
                refused(
                        "an unknown field, strict",
                        SERVICES + "?fieldValidation=Strict",
                        svc("x", "{\"ports\":[{\"port\":80}],\"foo\":1}"),
                        400,
                        "Service in version \"v1\" cannot be handled as a Service: "
                                + "strict decoding error: unknown field \"spec.foo\"",
                        ""),
                refused(
                        "a resourceVersion on create",
                        SERVICES,
                        "{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"7\"},"
                                + "\"spec\":{\"ports\":[{\"port\":80}]}}",
                        400,
                        "resourceVersion should not be set on objects to be " + "created",
                        ""),
                refused(
                        "an unknown addressType",
                        SLICES,
                        slice("IPv5", "[]"),
                        422,
                        "EndpointSlice.discovery.k8s.io \"s\" is "
                                + "invalid: addressType: Unsupported value: \"IPv5\": supported values: \"FQDN\", \"IPv4\", \"IPv6\"",
                        "FieldValueNotSupported addressType"),
                refused(
                        "an endpoint without addresses",
                        SLICES,
                        slice("IPv4", "[{\"addresses\":[]}]"),
                        422,
                        "EndpointSlice.discovery.k8s.io \"s\" is invalid: endpoints[0].addresses: Required value: must contain at "
                                + "least 1 address",
                        "FieldValueRequired endpoints[0].addresses"),
                refused(
                        "an IPv6 address in an IPv4 slice",
                        SLICES,
                        slice("IPv4", "[{\"addresses\":[\"fd00::1\"]}]"),
                        422,
                        "EndpointSlice.discovery.k8s.io \"s\" is invalid: endpoints[0].addresses[0]: Invalid value: \"fd00::1\": "
                                + "must be a valid IPv4 address",
                        "FieldValueInvalid endpoints[0].addresses[0]"),
                created("a valid slice", SLICES, slice("IPv4", "[{\"addresses\":[\"10.0.0.1\"]}]")),
                refused(
                        "a namespace name that is no DNS label",
                        "/api/v1/namespaces",
                        "{\"metadata\":{\"name\":\"a.b\"}}",
                        422,
                        "Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 label "
                                + "must consist of lower case alphanumeric characters or '-', and must start and end with an "
                                + "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                                + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                        "FieldValueInvalid metadata.name"),
                refused(
                        "a node taint of unknown effect",
                        "/api/v1/nodes",
                        "{\"metadata\":{\"name\":\"n\"},\"spec\":"
                                + "{\"taints\":[{\"key\":\"k\",\"effect\":\"Sometimes\"}]}}",
                        422,
                        "Node \"n\" is invalid: "
                                + "spec.taints[0].effect: Unsupported value: \"Sometimes\": supported values: \"NoExecute\", "
                                + "\"NoSchedule\", \"PreferNoSchedule\"",
                        "FieldValueNotSupported spec.taints[0].effect"),
                refused(
                        "pool addresses written as a string",
                        POOLS,
                        pool("{\"addresses\":\"10.0.0.0/24\"}"),
                        422,
                        "IPAddressPool.metallb.io \"p\" is invalid: spec.addresses: Invalid value: \"string\": spec.addresses in "
                                + "body must be of type array: \"string\"",
                        "FieldValueInvalid spec.addresses"),
                refused(
                        "pool autoAssign written as a string",
                        POOLS,
                        pool("{\"addresses\":[],\"autoAssign\":\"yes\"}"),
                        422,
                        "IPAddressPool.metallb.io \"p\" is invalid: spec.autoAssign: Invalid value: \"string\": spec.autoAssign in "
                                + "body must be of type boolean: \"string\"",
                        "FieldValueInvalid spec.autoAssign"),
                refused(
                        "a pool without addresses",
                        POOLS,
                        pool("{}"),
                        422,
                        "IPAddressPool.metallb.io \"p\" is invalid: spec.addresses: Required value",
                        "FieldValueRequired spec.addresses"),
                refused(
                        "an unknown pool field, strict",
                        POOLS + "?fieldValidation=Strict",
                        pool("{\"addresses\":[],\"autoassign\":false}"),
                        400,
                        "IPAddressPool in version \"v1beta1\" cannot be handled "
                                + "as a IPAddressPool: strict decoding error: unknown field \"spec.autoassign\"",
                        ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answersAsKubeApiserver(Case c) {
        TestSupport.Raw r = TestSupport.send(server, "POST", c.path(), "application/json", c.body());
        assertThat(r.code()).as(r.body()).isEqualTo(c.code());
        if (c.code() == 201) {
            return;
        }
        JsonNode status = r.json();
        assertThat(status.path("kind").asString()).isEqualTo("Status");
        assertThat(status.path("message").asString()).isEqualTo(c.message());
        assertThat(status.path("reason").asString()).isEqualTo(c.code() == 422 ? "Invalid" : "BadRequest");
        JsonNode cause = status.path("details").path("causes").path(0);
        assertThat(
                        c.cause().isEmpty()
                                ? ""
                                : cause.path("reason").asString() + " "
                                        + cause.path("field").asString())
                .isEqualTo(c.cause());
    }

    private static Case refused(String name, String path, String body, int code, String message, String cause) {
        return new Case(name, path, body, code, message, cause);
    }

    private static Case created(String name, String path, String body) {
        return new Case(name, path, body, 201, "", "");
    }

    private static String svc(String name, String spec) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":" + spec
                + "}";
    }

    private static String slice(String addressType, String endpoints) {
        return "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"s\"},"
                + "\"addressType\":\"" + addressType + "\",\"endpoints\":" + endpoints + "}";
    }

    private static String pool(String spec) {
        return "{\"apiVersion\":\"metallb.io/v1beta1\",\"kind\":\"IPAddressPool\",\"metadata\":{\"name\":\"p\"},"
                + "\"spec\":" + spec + "}";
    }
}

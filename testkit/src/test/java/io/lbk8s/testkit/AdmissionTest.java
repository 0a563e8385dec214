package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** What the API server does to written objects besides refusing them: defaults, pruning, server-set fields. */
class AdmissionTest extends WithServer {

    private static final ResourceDefinitionContext POOLS = new ResourceDefinitionContext.Builder()
            .withGroup("metallb.io")
            .withVersion("v1beta1")
            .withPlural("ipaddresspools")
            .withKind("IPAddressPool")
            .withNamespaced(true)
            .build();

    @Test
    void loadBalancerClassCannotChangeOnceSet() {
        Service created = client.services()
                .resource(new ServiceBuilder(TestSupport.loadBalancer("web"))
                        .editSpec()
                        .withLoadBalancerClass("example.com/a")
                        .endSpec()
                        .build())
                .create();
        created.getSpec().setLoadBalancerClass("example.com/b");
        assertThatThrownBy(() -> client.services().resource(created).update())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage())
                            .isEqualTo("Service \"web\" is invalid: spec.loadBalancerClass: "
                                    + "Invalid value: \"example.com/b\": may not change once set");
                });
    }

    @Test
    void statusAndServerSetMetadataSentOnCreateAreIgnored() {
        String body = "{\"metadata\":{\"name\":\"p\",\"uid\":\"mine\",\"creationTimestamp\":\"2001-01-01T00:00:00Z\","
                + "\"generation\":9},\"spec\":{\"addresses\":[\"10.0.0.0/24\"]},\"status\":{\"made\":\"up\"}}";
        JsonNode created = createPool(body).json();
        assertThat(created.path("metadata").path("uid").asString())
                .isNotEqualTo("mine")
                .isNotEmpty();
        assertThat(created.path("metadata").path("creationTimestamp").asString())
                .doesNotStartWith("2001");
        assertThat(created.path("metadata").path("generation").asLong()).isEqualTo(1);
        assertThat(created.has("status")).as(created.toString()).isFalse();
    }

    @Test
    void customResourcesAreDefaultedAndPrunedWithAWarning() {
        TestSupport.Raw r = createPool(
                "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"addresses\":[\"10.0.0.0/24\"]," + "\"autoassign\":false}}");
        assertThat(r.code()).isEqualTo(201);
        GenericKubernetesResource pool =
                client.genericKubernetesResources(POOLS).withName("p").get();
        assertThat(pool.get("spec").toString())
                .isEqualTo("{addresses=[10.0.0.0/24], autoAssign=true, " + "avoidBuggyIPs=false}");
        assertThat(r.warnings()).containsExactly("299 - \"unknown field \\\"spec.autoassign\\\"\"");
    }

    @Test
    void namespacesGetTheirFinalizerPhaseAndNameLabel() {
        var ns = client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("team-a")
                        .endMetadata()
                        .build())
                .create();
        assertThat(ns.getSpec().getFinalizers()).containsExactly("kubernetes");
        assertThat(ns.getStatus().getPhase()).isEqualTo("Active");
        assertThat(ns.getMetadata().getLabels()).containsEntry("kubernetes.io/metadata.name", "team-a");
    }

    @Test
    void updatesAreValidatedToo() {
        client.services().resource(TestSupport.loadBalancer("web")).create();
        TestSupport.Raw patched = TestSupport.send(
                server,
                "PATCH",
                "/api/v1/namespaces/default/services/web",
                "application/merge-patch+json",
                "{\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"UDPk\"}]}}");
        assertThat(patched.code()).isEqualTo(422);
        assertThat(patched.json().path("message").asString())
                .isEqualTo(
                        "Service \"web\" is invalid: "
                                + "spec.ports[0].protocol: Unsupported value: \"UDPk\": supported values: \"SCTP\", \"TCP\", \"UDP\"");
        assertThat(client.services()
                        .withName("web")
                        .get()
                        .getSpec()
                        .getPorts()
                        .getFirst()
                        .getProtocol())
                .isEqualTo("TCP");
    }

    @Test
    void aLoadBalancerStatusMustHoldIps() {
        client.services().resource(TestSupport.loadBalancer("web")).create();
        TestSupport.Raw r = TestSupport.send(
                server,
                "PATCH",
                "/api/v1/namespaces/default/services/web/status",
                "application/merge-patch+json",
                "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.0.0.300\"}]}}}");
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.json().path("message").asString())
                .isEqualTo("Service \"web\" is invalid: "
                        + "status.loadBalancer.ingress[0].ip: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. "
                        + "10.9.8.7 or 2001:db8::ffff)");
        TestSupport.send(
                server,
                "PATCH",
                "/api/v1/namespaces/default/services/web/status",
                "application/merge-patch+json",
                "{\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"10.0.0.3\"}]}}}");
        assertThat(client.services()
                        .withName("web")
                        .get()
                        .getStatus()
                        .getLoadBalancer()
                        .getIngress()
                        .getFirst()
                        .getIpMode())
                .as("defaulted")
                .isEqualTo("VIP");
    }

    @Test
    void openApiDescribesBuiltInAndCustomKinds() {
        createCrds();
        JsonNode core = TestSupport.get(server, "/openapi/v3/api/v1")
                .json()
                .path("components")
                .path("schemas");
        JsonNode spec = core.path("io.k8s.api.core.v1.ServiceSpec").path("properties");
        assertThat(spec.path("ports").path("type").asString()).isEqualTo("array");
        assertThat(core.path("io.k8s.api.core.v1.Service")
                        .path("x-kubernetes-group-version-kind")
                        .toString())
                .isEqualTo("[{\"group\":\"\",\"kind\":\"Service\",\"version\":\"v1\"}]");
        JsonNode metallb =
                TestSupport.get(server, "/openapi/v3/apis/metallb.io/v1beta1").json();
        JsonNode pool = metallb.path("components").path("schemas").path("metallb.io.v1beta1.IPAddressPool");
        assertThat(pool.path("properties")
                        .path("spec")
                        .path("properties")
                        .path("addresses")
                        .path("type")
                        .asString())
                .isEqualTo("array");
    }

    private void createCrds() {
        try {
            server.createCrds(Path.of("..", "deploy", "crds"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private TestSupport.Raw createPool(String body) {
        createCrds();
        return TestSupport.send(
                server, "POST", "/apis/metallb.io/v1beta1/namespaces/default/ipaddresspools", "application/json", body);
    }
}

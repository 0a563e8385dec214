package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class DiscoveryTest extends WithServer {

    @Test
    void versionIsRealistic() {
        assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.33.0");
        assertThat(client.getKubernetesVersion().getMajor()).isEqualTo("1");
        assertThat(client.getKubernetesVersion().getMinor()).isEqualTo("33");
    }

    @Test
    void coreApiListsServicesNodesAndTheirStatusSubresources() {
        TestSupport.Raw api = TestSupport.get(server, "/api");
        assertThat(api.code()).isEqualTo(200);
        assertThat(api.json().path("versions").get(0).asString()).isEqualTo("v1");

        List<APIResource> resources = client.getApiResources("v1").getResources();
        assertThat(resources)
                .extracting(APIResource::getName)
                .contains(
                        "namespaces",
                        "services",
                        "services/status",
                        "nodes",
                        "nodes/status",
                        "endpoints",
                        "events",
                        "configmaps",
                        "pods",
                        "pods/status",
                        "secrets",
                        "serviceaccounts");
        APIResource services = resources.stream()
                .filter(r -> r.getName().equals("services"))
                .findFirst()
                .orElseThrow();
        assertThat(services.getNamespaced()).isTrue();
        assertThat(services.getKind()).isEqualTo("Service");
        assertThat(services.getVerbs()).contains("get", "list", "watch", "create", "update", "patch", "delete");
        APIResource nodes = resources.stream()
                .filter(r -> r.getName().equals("nodes"))
                .findFirst()
                .orElseThrow();
        assertThat(nodes.getNamespaced()).isFalse();
    }

    @Test
    void groupsIncludeBuiltInsAndCustomResourceDefinitionGroups() {
        assertThat(groupNames())
                .contains(
                        "apps",
                        "discovery.k8s.io",
                        "coordination.k8s.io",
                        "events.k8s.io",
                        "apiextensions.k8s.io",
                        "rbac.authorization.k8s.io")
                .doesNotContain("metallb.io");

        TestSupport.createIpAddressPoolCrd(client);

        assertThat(groupNames()).contains("metallb.io");
        APIGroup metallb = client.getApiGroup("metallb.io");
        assertThat(metallb.getPreferredVersion().getGroupVersion()).isEqualTo("metallb.io/v1beta1");
        List<APIResource> resources =
                client.getApiResources("metallb.io/v1beta1").getResources();
        assertThat(resources).extracting(APIResource::getName).contains("ipaddresspools", "ipaddresspools/status");
        APIResource pools = resources.stream()
                .filter(r -> r.getName().equals("ipaddresspools"))
                .findFirst()
                .orElseThrow();
        assertThat(pools.getKind()).isEqualTo("IPAddressPool");
        assertThat(pools.getNamespaced()).isTrue();
        assertThat(pools.getSingularName()).isEqualTo("ipaddresspool");
    }

    @Test
    void resetForgetsObjectsAndCrdGroups() {
        TestSupport.createIpAddressPoolCrd(client);
        client.services().resource(TestSupport.loadBalancer("web")).create();

        server.reset();

        assertThat(client.services().list().getItems()).isEmpty();
        assertThat(groupNames()).doesNotContain("metallb.io");
        assertThat(client.services().resource(TestSupport.loadBalancer("web")).create())
                .isNotNull();
    }

    @Test
    void createdCrdIsEstablished() {
        TestSupport.createIpAddressPoolCrd(client);
        var crd = client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("ipaddresspools.metallb.io")
                .get();
        assertThat(crd.getStatus().getConditions())
                .anyMatch(
                        c -> c.getType().equals("Established") && c.getStatus().equals("True"));
    }

    @Test
    void missingObjectIs404WithANotFoundStatus() {
        TestSupport.Raw r =
                TestSupport.send(server, "DELETE", "/api/v1/namespaces/default/services/nope", "application/json", "");
        assertThat(r.code()).isEqualTo(404);
        assertThat(r.json().path("reason").asString()).isEqualTo("NotFound");
        assertThat(r.json().path("details").path("name").asString()).isEqualTo("nope");
        assertThat(r.json().path("message").asString()).isEqualTo("services \"nope\" not found");
    }

    @Test
    void aCustomResourceIsServedOnlyWhileItsCrdExists() {
        String pools = "/apis/metallb.io/v1beta1/namespaces/default/ipaddresspools";
        assertThat(TestSupport.get(server, pools).code()).isEqualTo(404);
        TestSupport.Raw create = TestSupport.send(
                server,
                "POST",
                pools,
                "application/json",
                "{\"apiVersion\":\"metallb.io/v1beta1\",\"kind\":\"IPAddressPool\",\"metadata\":{\"name\":\"p\"},"
                        + "\"spec\":{\"addresses\":[\"10.0.0.0/24\"]}}");
        assertThat(create.code()).isEqualTo(404);
        assertThat(create.json().path("message").asString())
                .isEqualTo("the server could not find the requested resource");

        TestSupport.createIpAddressPoolCrd(client);

        assertThat(TestSupport.get(server, pools).code()).isEqualTo(200);
    }

    @Test
    void unknownGroupVersionIs404WithStatus() {
        TestSupport.Raw r = TestSupport.get(server, "/apis/nope.example.com/v1");
        assertThat(r.code()).isEqualTo(404);
        assertThat(r.json().path("kind").asString()).isEqualTo("Status");
    }

    private List<String> groupNames() {
        JsonNode apis = TestSupport.get(server, "/apis").json();
        List<String> names = new ArrayList<>();
        apis.path("groups").values().forEach(g -> names.add(g.path("name").asString()));
        return names;
    }
}

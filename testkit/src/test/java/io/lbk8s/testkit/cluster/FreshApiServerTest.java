package io.lbk8s.testkit.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What one test leaves on the shared kube-apiserver, the next one does not find; what the server made stays. */
class FreshApiServerTest {

    private static final ResourceDefinitionContext POOLS = new ResourceDefinitionContext.Builder()
            .withGroup("metallb.io")
            .withVersion("v1beta1")
            .withPlural("ipaddresspools")
            .withKind("IPAddressPool")
            .withNamespaced(true)
            .build();

    private static final ResourceDefinitionContext CLAIMS = new ResourceDefinitionContext.Builder()
            .withGroup("lbk8s.io")
            .withVersion("v1alpha1")
            .withPlural("ipaddressclaims")
            .withKind("IPAddressClaim")
            .withNamespaced(false)
            .build();

    @Test
    void theNextTestFindsNoneOfWhatTheLastOneMadeAndCanMakeTheSameNamesAgain() throws Exception {
        for (int round = 0; round < 2; round++) {
            try (FreshApiServer server = FreshApiServer.start()) {
                KubernetesClient client = server.client();
                assertThat(client.namespaces().withName("lbk8s-system").get()).isNull();
                assertThat(client.apiextensions()
                                .v1()
                                .customResourceDefinitions()
                                .list()
                                .getItems())
                        .isEmpty();
                assertThat(client.services().inNamespace("default").list().getItems())
                        .extracting(s -> s.getMetadata().getName())
                        .containsExactly("kubernetes");
                assertThat(client.rbac()
                                .clusterRoles()
                                .withName("cluster-admin")
                                .get())
                        .isNotNull();
                assertThat(server.createCrds(Path.of("..", "deploy", "crds"))).isEqualTo(12);
                client.namespaces()
                        .resource(new NamespaceBuilder()
                                .withNewMetadata()
                                .withName("lbk8s-system")
                                .withLabels(Map.of("round", Integer.toString(round)))
                                .endMetadata()
                                .build())
                        .create();
                client.genericKubernetesResources(POOLS)
                        .inNamespace("lbk8s-system")
                        .resource(new GenericKubernetesResourceBuilder()
                                .withApiVersion("metallb.io/v1beta1")
                                .withKind("IPAddressPool")
                                .withNewMetadata()
                                .withName("lan")
                                .withFinalizers(List.of("example.com/held"))
                                .endMetadata()
                                .withAdditionalProperties(Map.of("spec", Map.of("addresses", List.of("192.0.2.0/28"))))
                                .build())
                        .create();
                client.services()
                        .inNamespace("default")
                        .resource(new ServiceBuilder()
                                .withNewMetadata()
                                .withName("web")
                                .withFinalizers(List.of("example.com/held"))
                                .endMetadata()
                                .withNewSpec()
                                .withType("LoadBalancer")
                                .addNewPort()
                                .withPort(80)
                                .endPort()
                                .endSpec()
                                .build())
                        .create();
                client.nodes()
                        .resource(new NodeBuilder()
                                .withNewMetadata()
                                .withName("node-1")
                                .endMetadata()
                                .build())
                        .create();
                client.rbac()
                        .clusterRoles()
                        .resource(new ClusterRoleBuilder()
                                .withNewMetadata()
                                .withName("lbk8s-controller")
                                .endMetadata()
                                .build())
                        .create();

                assertThat(server.requests())
                        .as("the audit log has this test's requests, not the wipe's")
                        .anyMatch(r -> r.verb().equals("create") && r.path().endsWith("/services"))
                        .noneMatch(r -> r.user().equals(AuditLog.QUIET_USER));
            }
        }
    }

    @Test
    void startWithCrdsKeepsAnUnchangedCrdWithoutItsObjectsAndReplacesAChangedOne() throws Exception {
        Path crds = Path.of("..", "deploy", "crds");
        String pools = "ipaddresspools.metallb.io";
        String claims = "ipaddressclaims.lbk8s.io";
        String poolUid;
        try (FreshApiServer server = FreshApiServer.startWithCrds(crds)) {
            KubernetesClient client = server.client();
            server.ensureNamespace("lbk8s-system");
            client.genericKubernetesResources(POOLS)
                    .inNamespace("lbk8s-system")
                    .resource(new GenericKubernetesResourceBuilder()
                            .withApiVersion("metallb.io/v1beta1")
                            .withKind("IPAddressPool")
                            .withNewMetadata()
                            .withName("lan")
                            .endMetadata()
                            .withAdditionalProperties(Map.of("spec", Map.of("addresses", List.of("192.0.2.0/28"))))
                            .build())
                    .create();
            client.genericKubernetesResources(CLAIMS)
                    .resource(new GenericKubernetesResourceBuilder()
                            .withApiVersion("lbk8s.io/v1alpha1")
                            .withKind("IPAddressClaim")
                            .withNewMetadata()
                            .withName("192.0.2.1")
                            .endMetadata()
                            .withAdditionalProperties(Map.of(
                                    "spec",
                                    Map.of(
                                            "address",
                                            "192.0.2.1",
                                            "pool",
                                            "lan",
                                            "services",
                                            List.of(Map.of("namespace", "default", "name", "web", "uid", "u-1")))))
                            .build())
                    .create();
            var definitions = client.apiextensions().v1().customResourceDefinitions();
            poolUid = definitions.withName(pools).get().getMetadata().getUid();
            String conflictsUid = definitions
                    .withName("addressconflicts.lbk8s.io")
                    .get()
                    .getMetadata()
                    .getUid();
            definitions.withName(claims).edit(c -> {
                c.getMetadata().setLabels(Map.of("app.kubernetes.io/managed-by", "lbk8s-install"));
                return c;
            });
            String claimsUid = definitions.withName(claims).get().getMetadata().getUid();

            try (FreshApiServer next = FreshApiServer.startWithCrds(crds)) {
                var served = next.client().apiextensions().v1().customResourceDefinitions();
                assertThat(served.withName(pools).get().getMetadata().getUid())
                        .as("kept")
                        .isEqualTo(poolUid);
                assertThat(next.client()
                                .genericKubernetesResources(POOLS)
                                .inAnyNamespace()
                                .list()
                                .getItems())
                        .isEmpty();
                assertThat(served.withName("addressconflicts.lbk8s.io")
                                .get()
                                .getMetadata()
                                .getUid())
                        .as("a kept CRD of lbk8s.io, a group whose name ends in k8s.io")
                        .isEqualTo(conflictsUid);
                assertThat(next.client()
                                .genericKubernetesResources(CLAIMS)
                                .list()
                                .getItems())
                        .as("a cluster-scoped object of a kept CRD")
                        .isEmpty();
                assertThat(served.withName(claims).get().getMetadata())
                        .as("made again as its file defines it")
                        .satisfies(m -> assertThat(m.getUid()).isNotEqualTo(claimsUid))
                        .satisfies(m -> assertThat(m.getLabels()).isNullOrEmpty());
            }
        }
        try (FreshApiServer empty = FreshApiServer.start()) {
            assertThat(empty.client()
                            .apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .list()
                            .getItems())
                    .isEmpty();
        }
    }
}

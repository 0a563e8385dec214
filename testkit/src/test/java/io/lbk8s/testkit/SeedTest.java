package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --seed}: the objects of a YAML file created at start, their status included, custom resources too. */
class SeedTest extends WithServer {
    @Test
    void createsEveryDocumentWithItsStatus(@TempDir Path dir) throws Exception {
        server.createCrds(Path.of(TestSupport.class.getResource("/crds").toURI()));
        Path seed = Files.writeString(dir.resolve("seed.yaml"), """
                apiVersion: v1
                kind: Namespace
                metadata: {name: lbk8s-system}
                ---
                apiVersion: v1
                kind: Node
                metadata: {name: node-1}
                status:
                  addresses: [{type: InternalIP, address: 198.51.100.10}]
                ---
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata: {name: training, namespace: lbk8s-system}
                spec: {addresses: [198.51.100.200-198.51.100.210]}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: web, namespace: default}
                spec: {type: LoadBalancer, ports: [{port: 80}]}
                """);

        assertThat(server.createObjects(seed)).isEqualTo(4);

        assertThat(client.nodes().withName("node-1").get().getStatus().getAddresses())
                .extracting("address")
                .containsExactly("198.51.100.10");
        assertThat(client.services()
                        .inNamespace("default")
                        .withName("web")
                        .get()
                        .getSpec()
                        .getClusterIP())
                .isNotBlank();
        GenericKubernetesResource pool = client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup("metallb.io")
                        .withVersion("v1beta1")
                        .withPlural("ipaddresspools")
                        .withNamespaced(true)
                        .build())
                .inNamespace("lbk8s-system")
                .withName("training")
                .get();
        assertThat(pool.get("spec", "addresses").toString()).contains("198.51.100.200-198.51.100.210");
    }
}

package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PatchTest extends WithServer {

    private Service createWeb() {
        Service s = new ServiceBuilder(TestSupport.loadBalancer("web"))
                .editMetadata()
                .addToAnnotations("keep", "1")
                .addToAnnotations("drop", "1")
                .endMetadata()
                .editSpec()
                .addNewPort()
                .withName("https")
                .withPort(443)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
        return client.services().resource(s).create();
    }

    @Test
    void mergePatchReplacesArraysAndDeletesNullKeys() {
        createWeb();

        Service patched = client.services().withName("web").patch(PatchContext.of(PatchType.JSON_MERGE), """
        {"metadata":{"annotations":{"drop":null,"new":"2"}},
         "spec":{"ports":[{"name":"dns","port":53,"protocol":"UDP"}]}}
        """);

        assertThat(patched.getMetadata().getAnnotations())
                .containsEntry("keep", "1")
                .containsEntry("new", "2")
                .doesNotContainKey("drop");
        assertThat(patched.getSpec().getPorts()).extracting("name").containsExactly("dns");
        Service stored = client.services().withName("web").get();
        assertThat(stored.getSpec().getPorts()).extracting("port").containsExactly(53);
        assertThat(stored.getMetadata().getAnnotations()).doesNotContainKey("drop");
    }

    @Test
    void mergePatchOfStatusReplacesArraysAndDeletesNullKeys() {
        createWeb();
        var status = client.services().withName("web").subresource("status");
        status.patch(PatchContext.of(PatchType.JSON_MERGE), """
        {"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"},{"ip":"192.0.2.2"}]},
                   "conditions":[{"type":"A","status":"True","reason":"R","message":"m",
                                  "lastTransitionTime":"2025-01-01T00:00:00Z"}]}}
        """);

        Service patched = status.patch(PatchContext.of(PatchType.JSON_MERGE), """
        {"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.3"}]},"conditions":null},
         "spec":{"type":"ClusterIP"}}
        """);

        assertThat(patched.getStatus().getLoadBalancer().getIngress())
                .extracting("ip")
                .containsExactly("192.0.2.3");
        assertThat(patched.getStatus().getConditions()).isEmpty();
        assertThat(patched.getSpec().getType()).isEqualTo("LoadBalancer");
    }

    @Test
    void mergePatchOfTheMainResourceDoesNotChangeStatus() {
        createWeb();
        Service patched = client.services().withName("web").patch(PatchContext.of(PatchType.JSON_MERGE), """
        {"metadata":{"labels":{"x":"y"}},"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.9"}]}}}
        """);

        assertThat(patched.getMetadata().getLabels()).containsEntry("x", "y");
        assertThat(patched.getStatus().getLoadBalancer().getIngress()).isEmpty();
    }

    @Test
    void mergePatchWithStaleResourceVersionGetsConflict() {
        Service created = createWeb();
        client.services()
                .withName("web")
                .edit(s -> new ServiceBuilder(s)
                        .editMetadata()
                        .addToLabels("a", "b")
                        .endMetadata()
                        .build());

        KubernetesClientException e = catchThrowableOfType(
                KubernetesClientException.class,
                () -> client.services()
                        .withName("web")
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                "{\"metadata\":{\"resourceVersion\":\""
                                        + created.getMetadata().getResourceVersion()
                                        + "\",\"labels\":{\"c\":\"d\"}}}"));

        assertThat(e).isNotNull();
        assertThat(e.getCode()).isEqualTo(409);
    }

    @Test
    void jsonPatchWithAFailingTestOpAnswersPromptlyWithAnError() {
        createWeb();

        KubernetesClientException e = assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> catchThrowableOfType(
                        KubernetesClientException.class,
                        () -> client.services().withName("web").patch(PatchContext.of(PatchType.JSON), """
                [{"op":"test","path":"/metadata/annotations/keep","value":"not-1"},
                 {"op":"replace","path":"/metadata/annotations/keep","value":"2"}]
                """)));

        assertThat(e).isNotNull();
        assertThat(e.getCode()).isEqualTo(422);
        assertThat(client.services().withName("web").get().getMetadata().getAnnotations())
                .containsEntry("keep", "1");
    }

    @Test
    void jsonPatchWithPassingTestOpApplies() {
        createWeb();
        Service patched = client.services().withName("web").patch(PatchContext.of(PatchType.JSON), """
        [{"op":"test","path":"/metadata/annotations/keep","value":"1"},
         {"op":"replace","path":"/metadata/annotations/keep","value":"2"}]
        """);
        assertThat(patched.getMetadata().getAnnotations()).containsEntry("keep", "2");
    }

    @Test
    void strategicMergePatchMergesListsByKey() {
        createWeb();
        Service patched = client.services().withName("web").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), """
        {"metadata":{"labels":{"s":"1"}},"spec":{"ports":[{"name":"https","port":8443}]}}
        """);
        assertThat(patched.getMetadata().getLabels()).containsEntry("s", "1");
        assertThat(patched.getSpec().getPorts()).extracting("name").containsExactly("http", "https");
        assertThat(patched.getSpec().getPorts()).extracting("port").containsExactly(80, 8443);
    }

    @Test
    void serverSideApplyCreatesAndUpdates() {
        Service applied = client.services()
                .resource(TestSupport.loadBalancer("applied"))
                .fieldManager("test")
                .forceConflicts()
                .serverSideApply();
        assertThat(applied.getSpec().getClusterIP()).isNotBlank();

        Service changed = new ServiceBuilder(TestSupport.loadBalancer("applied"))
                .editMetadata()
                .addToAnnotations("applied", "twice")
                .endMetadata()
                .build();
        Service again = client.services()
                .resource(changed)
                .fieldManager("test")
                .forceConflicts()
                .serverSideApply();
        assertThat(again.getMetadata().getAnnotations()).containsEntry("applied", "twice");
        assertThat(again.getSpec().getClusterIP()).isEqualTo(applied.getSpec().getClusterIP());
    }
}

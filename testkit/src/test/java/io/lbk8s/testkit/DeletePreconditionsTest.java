package io.lbk8s.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/** kube-apiserver deletes an object only if DeleteOptions' preconditions (uid, resourceVersion) still hold. */
class DeletePreconditionsTest extends WithServer {

    private ConfigMap create() {
        return client.configMaps()
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("claim")
                        .endMetadata()
                        .addToData("holder", "a")
                        .build())
                .create();
    }

    @Test
    void aStaleResourceVersionGetsConflictAndDeletesNothing() {
        ConfigMap created = create();
        client.configMaps()
                .withName("claim")
                .edit(c -> new ConfigMapBuilder(c).addToData("holder", "b").build());

        KubernetesClientException e = catchThrowableOfType(
                KubernetesClientException.class,
                () -> client.configMaps()
                        .withName("claim")
                        .lockResourceVersion(created.getMetadata().getResourceVersion())
                        .delete());

        assertThat(e).isNotNull();
        assertThat(e.getCode()).isEqualTo(409);
        assertThat(e.getStatus().getMessage()).contains("precondition resourceVersion");
        assertThat(client.configMaps().withName("claim").get().getData()).containsEntry("holder", "b");
    }

    @Test
    void theCurrentResourceVersionDeletes() {
        ConfigMap created = create();

        client.configMaps()
                .withName("claim")
                .lockResourceVersion(created.getMetadata().getResourceVersion())
                .delete();

        assertThat(client.configMaps().withName("claim").get()).isNull();
    }

    @Test
    void aDeleteWithoutPreconditionsStillDeletesAnyVersion() {
        create();
        client.configMaps()
                .withName("claim")
                .edit(c -> new ConfigMapBuilder(c).addToData("holder", "b").build());

        client.configMaps().withName("claim").delete();

        assertThat(client.configMaps().withName("claim").get()).isNull();
    }
}

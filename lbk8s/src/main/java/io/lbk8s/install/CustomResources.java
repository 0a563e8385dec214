package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Optional;

/** Reads custom resources whose CRD may be missing: install, status and uninstall each answer that in their own way. */
final class CustomResources {
    private CustomResources() {}

    /** The namespace's objects of the context's kind; empty when its CRD is not installed (the API answers 404). */
    static Optional<List<GenericKubernetesResource>> list(
            KubernetesClient client, ResourceDefinitionContext context, String namespace) {
        try {
            return Optional.of(client.genericKubernetesResources(context)
                    .inNamespace(namespace)
                    .list()
                    .getItems());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }
}

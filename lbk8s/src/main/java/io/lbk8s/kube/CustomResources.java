package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The two families of custom resources lbk8s reads and writes: MetalLB's own kinds (namespaced, {@code metallb.io/v1beta1}),
 * which users and MetalLB's tools already know, and lbk8s's per-address kinds (cluster-scoped, {@code lbk8s.io/v1alpha1}).
 */
public final class CustomResources {
    private CustomResources() {}

    static ResourceDefinitionContext metallb(String kind, String plural) {
        return context("metallb.io", "v1beta1", kind, plural, true);
    }

    /** A MetalLB kind at another version: BGPPeer is read at v1beta2, its storage version, as MetalLB reads it. */
    static ResourceDefinitionContext metallb(String version, String kind, String plural) {
        return context("metallb.io", version, kind, plural, true);
    }

    static ResourceDefinitionContext lbk8s(String kind, String plural) {
        return context("lbk8s.io", "v1alpha1", kind, plural, false);
    }

    /**
     * Writes the status of a namespaced object of {@code context}, creating the object first (empty spec, these labels)
     * when it is not there: status is a subresource, which a create does not set.
     */
    static void writeStatus(
            KubernetesClient client,
            ResourceDefinitionContext context,
            String namespace,
            String name,
            Map<String, String> labels,
            Map<String, Object> status) {
        var resources = client.genericKubernetesResources(context).inNamespace(namespace);
        GenericKubernetesResource current = resources.withName(name).get();
        if (current == null) {
            current = resources
                    .resource(new GenericKubernetesResourceBuilder()
                            .withApiVersion(context.getGroup() + "/" + context.getVersion())
                            .withKind(context.getKind())
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .withLabels(labels)
                            .endMetadata()
                            .withAdditionalProperties(new HashMap<>(Map.of("spec", Map.of())))
                            .build())
                    .create();
        }
        current.getAdditionalProperties().put("status", status);
        resources.resource(current).updateStatus();
    }

    /** The namespace's objects of the context's kind; empty when its CRD is not installed (the API answers 404). */
    public static Optional<List<GenericKubernetesResource>> listIfInstalled(
            KubernetesClient client, ResourceDefinitionContext context, String namespace) {
        return ifInstalled(() -> client.genericKubernetesResources(context)
                .inNamespace(namespace)
                .list()
                .getItems());
    }

    /** The objects of the context's kind in every namespace; empty when its CRD is not installed. */
    public static Optional<List<GenericKubernetesResource>> listEverywhereIfInstalled(
            KubernetesClient client, ResourceDefinitionContext context) {
        return ifInstalled(() -> client.genericKubernetesResources(context)
                .inAnyNamespace()
                .list()
                .getItems());
    }

    private static Optional<List<GenericKubernetesResource>> ifInstalled(
            Supplier<List<GenericKubernetesResource>> list) {
        try {
            return Optional.of(list.get());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static ResourceDefinitionContext context(
            String group, String version, String kind, String plural, boolean namespaced) {
        return new ResourceDefinitionContext.Builder()
                .withGroup(group)
                .withVersion(version)
                .withKind(kind)
                .withPlural(plural)
                .withNamespaced(namespaced)
                .build();
    }
}

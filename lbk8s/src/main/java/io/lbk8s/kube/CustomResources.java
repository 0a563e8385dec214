package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
     * Writes the whole status of a namespaced object of {@code context}, creating the object first (empty spec, these
     * labels) when it is not there: status is a subresource, which a create does not set. {@code likelyExists} says
     * what to try first: an object that exists takes one request (a JSON patch that sets its status whole, where a
     * merge patch would keep the fields a new status leaves out), one that does not takes two (create, then status);
     * a wrong guess costs one more. No GET: at 10,000 Services a speaker writes thousands of these.
     */
    static void writeStatus(
            KubernetesClient client,
            ResourceDefinitionContext context,
            String namespace,
            String name,
            Map<String, String> labels,
            Map<String, Object> status,
            boolean likelyExists) {
        var resources = client.genericKubernetesResources(context).inNamespace(namespace);
        GenericKubernetesResource object = new GenericKubernetesResourceBuilder()
                .withApiVersion(context.getGroup() + "/" + context.getVersion())
                .withKind(context.getKind())
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .endMetadata()
                .withAdditionalProperties(new HashMap<>(Map.of("spec", Map.of())))
                .build();
        String setStatus = client.getKubernetesSerialization()
                .asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
        if (likelyExists && patched(resources.resource(object), setStatus)) {
            return;
        }
        try {
            resources.resource(object).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
        if (!patched(resources.resource(object), setStatus)) {
            throw new KubernetesClientException(
                    context.getKind() + " " + namespace + "/" + name + " was deleted while its status was written");
        }
    }

    /** False when the object is not there. The patch goes to the object as given: by name alone, fabric8 GETs first. */
    private static boolean patched(Resource<GenericKubernetesResource> object, String setStatus) {
        try {
            object.subresource("status").patch(PatchContext.of(PatchType.JSON), setStatus);
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw e;
        }
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

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Deletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.Claim;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What lbk8s's cluster-scoped objects of one address (IPAddressClaim, AddressConflict) share: the version
 * {@code lbk8s.io/v1alpha1}, the name {@link Claim#nameOf} derives from the address, and {@code spec.address}.
 */
final class AddressObjects {
    private AddressObjects() {}

    /** The object of {@code address} in {@code context}, whether it exists or not. */
    static Resource<GenericKubernetesResource> named(
            KubernetesClient client, ResourceDefinitionContext context, IpAddress address) {
        return client.genericKubernetesResources(context).withName(Claim.nameOf(address));
    }

    /** A spec whose address is the one the object's name derives from. */
    record Read(IpAddress address, Map<?, ?> spec, String version) {}

    /** @param version the resourceVersion to write at; empty for a create */
    static GenericKubernetesResource resource(
            String kind,
            IpAddress address,
            String version,
            String managedBy,
            List<OwnerReference> owners,
            Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("lbk8s.io/v1alpha1")
                .withKind(kind)
                .withNewMetadata()
                .withName(Claim.nameOf(address))
                .withResourceVersion(version.isEmpty() ? null : version)
                .withLabels(Map.of("app.kubernetes.io/managed-by", managedBy))
                .withOwnerReferences(owners)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }

    /** The object's spec and address; empty for one lbk8s did not write (no spec, no address, another name). */
    static Optional<Read> read(GenericKubernetesResource resource) {
        if (!(resource.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)) {
            return Optional.empty();
        }
        return (spec.get("address") instanceof String text ? IpAddress.parse(text) : Optional.<IpAddress>empty())
                .filter(address ->
                        Claim.nameOf(address).equals(resource.getMetadata().getName()))
                .map(address -> new Read(
                        address,
                        spec,
                        Optional.ofNullable(resource.getMetadata().getResourceVersion())
                                .orElse("")));
    }

    /** Deletes the object; nothing when it is gone already. */
    static void deleteIfThere(Deletable object) {
        try {
            object.delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }
}

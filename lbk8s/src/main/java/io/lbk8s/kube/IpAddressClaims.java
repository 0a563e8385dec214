package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.Claim;
import io.lbk8s.ipam.ClaimHolder;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * IPAddressClaims in the API server: every write states the version it replaces, so a controller that acts on an old
 * view gets 409 Conflict instead of overwriting another controller's claim. Owner references point at the holders'
 * Namespaces (a cluster-scoped object may only be owned by cluster-scoped ones), so deleting a namespace deletes its
 * Services' claims even when no controller runs; a Service deleted while none runs is cleaned up by the next leader.
 */
public final class IpAddressClaims {
    public static final ResourceDefinitionContext CONTEXT = CustomResources.lbk8s("IPAddressClaim", "ipaddressclaims");
    public static final String CRD = CONTEXT.getPlural() + "." + CONTEXT.getGroup();

    /** What a create found. */
    public sealed interface Created {
        record Done(Claim claim) implements Created {}

        /** A claim of this address was there already (its current version). */
        record Exists(Claim claim) implements Created {}
    }

    /** The API server does not serve IPAddressClaims: its CRD was not applied (an upgrade without the new CRDs). */
    public static final class MissingCrd extends KubernetesClientException {
        MissingCrd() {
            super(
                    "the IPAddressClaim CRD (ipaddressclaims.lbk8s.io) is not installed, and no address is shown without "
                            + "a claim: apply this version's CRDs (lbk8s install, or kubectl apply -f deploy/crds/)",
                    404,
                    null);
        }
    }

    private final KubernetesClient client;
    private final Function<String, Optional<String>> namespaceUid;

    /** @param namespaceUid the uid of a namespace, for owner references; empty when unknown (no reference is set) */
    public IpAddressClaims(KubernetesClient client, Function<String, Optional<String>> namespaceUid) {
        this.client = client;
        this.namespaceUid = namespaceUid;
    }

    public List<Claim> list() {
        try {
            return client.genericKubernetesResources(CONTEXT).list().getItems().stream()
                    .map(IpAddressClaims::toClaim)
                    .flatMap(Optional::stream)
                    .toList();
        } catch (KubernetesClientException e) {
            throw e.getCode() == 404 ? new MissingCrd() : e;
        }
    }

    public Optional<Claim> get(IpAddress address) {
        return Optional.ofNullable(
                        AddressObjects.named(client, CONTEXT, address).get())
                .flatMap(IpAddressClaims::toClaim);
    }

    /** Creates the claim; if its address is claimed already, returns that claim, read after the refusal. */
    public Created create(Claim claim) {
        try {
            return new Created.Done(toClaim(client.genericKubernetesResources(CONTEXT)
                            .resource(toResource(claim))
                            .create())
                    .orElseThrow());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                throw new MissingCrd();
            }
            if (e.getCode() != 409) {
                throw e;
            }
            Optional<Claim> there = get(claim.address());
            return there.<Created>map(Created.Exists::new).orElseGet(() -> create(claim)); // deleted meanwhile: again
        }
    }

    /** Replaces the claim's holders, at the version read; 409 when it changed since. */
    public Claim update(Claim claim) {
        return toClaim(client.genericKubernetesResources(CONTEXT)
                        .resource(toResource(claim))
                        .update())
                .orElseThrow();
    }

    /** Deletes the claim at the version read; 409 when it changed since, nothing when it is gone already. */
    public void delete(Claim claim) {
        AddressObjects.deleteIfThere(
                AddressObjects.named(client, CONTEXT, claim.address()).lockResourceVersion(claim.version()));
    }

    /** Removes the Service from its claim of the address, deleting the claim with its last holder. */
    public void release(ServiceKey service, IpAddress address) {
        Optional<Claim> claim = get(address).filter(c -> c.heldBy(service));
        if (claim.isPresent()) {
            claim.get().without(service).ifPresentOrElse(this::update, () -> delete(claim.get()));
        }
    }

    private GenericKubernetesResource toResource(Claim claim) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("address", claim.address().toString());
        spec.put("pool", claim.pool());
        claim.sharingKey().ifPresent(k -> spec.put("sharingKey", k));
        spec.put(
                "services",
                claim.holders().stream()
                        .map(h -> Map.of(
                                "namespace",
                                h.service().namespace(),
                                "name",
                                h.service().name(),
                                "uid",
                                h.uid()))
                        .toList());
        List<OwnerReference> owners = new ArrayList<>();
        claim.holders().stream()
                .map(h -> h.service().namespace())
                .distinct()
                .forEach(ns -> namespaceUid
                        .apply(ns)
                        .ifPresent(uid -> owners.add(new OwnerReferenceBuilder()
                                .withApiVersion("v1")
                                .withKind("Namespace")
                                .withName(ns)
                                .withUid(uid)
                                .build())));
        return AddressObjects.resource(
                "IPAddressClaim", claim.address(), claim.version(), "lbk8s-controller", owners, spec);
    }

    /** The claim an object holds; empty for an object that is not a well-formed claim (never written by lbk8s). */
    public static Optional<Claim> toClaim(GenericKubernetesResource resource) {
        Optional<AddressObjects.Read> read = AddressObjects.read(resource);
        if (read.isEmpty() || !(read.get().spec().get("services") instanceof List<?> services)) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get().spec();
        List<ClaimHolder> holders = new ArrayList<>();
        for (Object item : services) {
            if (item instanceof Map<?, ?> s
                    && s.get("namespace") instanceof String ns
                    && s.get("name") instanceof String name
                    && s.get("uid") instanceof String uid) {
                holders.add(new ClaimHolder(new ServiceKey(ns, name), uid));
            }
        }
        String pool = spec.get("pool") instanceof String p ? p : "";
        Optional<String> sharingKey =
                spec.get("sharingKey") instanceof String k && !k.isEmpty() ? Optional.of(k) : Optional.empty();
        return Optional.of(new Claim(
                read.get().address(), pool, sharingKey, holders, read.get().version()));
    }
}

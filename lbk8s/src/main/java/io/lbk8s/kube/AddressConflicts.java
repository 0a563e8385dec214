package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.service.ServiceKey;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AddressConflicts in the API server, one per address, named as the address's IPAddressClaim is. Speakers write them
 * (a create, a refresh of lastSeen, a delete once the address is quiet); the controller and {@code lbk8s status} read
 * them. They have no owner: a cluster-scoped object cannot be owned by a speaker's Pod, so a conflict whose speaker
 * is gone turns stale instead ({@link AddressConflict#liveAt}).
 */
public final class AddressConflicts {
    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.lbk8s("AddressConflict", "addressconflicts");
    public static final String CRD = CONTEXT.getPlural() + "." + CONTEXT.getGroup();

    private final KubernetesClient client;

    public AddressConflicts(KubernetesClient client) {
        this.client = client;
    }

    public List<AddressConflict> list() {
        return client.genericKubernetesResources(CONTEXT).list().getItems().stream()
                .map(AddressConflicts::toConflict)
                .flatMap(Optional::stream)
                .toList();
    }

    public Optional<AddressConflict> get(IpAddress address) {
        return Optional.ofNullable(
                        AddressObjects.named(client, CONTEXT, address).get())
                .flatMap(AddressConflicts::toConflict);
    }

    /**
     * Writes the conflict: creates it, or replaces the one there (another speaker's, or this one's older version) with
     * it, keeping that one's firstSeen. Returns what was written.
     */
    public AddressConflict report(AddressConflict conflict) {
        Optional<AddressConflict> there = get(conflict.address());
        try {
            if (there.isEmpty()) {
                return toConflict(client.genericKubernetesResources(CONTEXT)
                                .resource(toResource(conflict, ""))
                                .create())
                        .orElseThrow();
            }
            AddressConflict merged = new AddressConflict(
                    conflict.address(),
                    conflict.mac(),
                    conflict.node(),
                    conflict.phase(),
                    conflict.service(),
                    there.get().firstSeen(),
                    conflict.lastSeen(),
                    there.get().version());
            return toConflict(client.genericKubernetesResources(CONTEXT)
                            .resource(toResource(merged, merged.version()))
                            .update())
                    .orElseThrow();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return report(conflict); // another speaker wrote it meanwhile: on top of theirs
            }
            throw e;
        }
    }

    /** Deletes the conflict of {@code address}; nothing when it is gone already. */
    public void clear(IpAddress address) {
        AddressObjects.deleteIfThere(AddressObjects.named(client, CONTEXT, address));
    }

    static GenericKubernetesResource toResource(AddressConflict conflict, String version) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("address", conflict.address().toString());
        spec.put("mac", conflict.mac());
        spec.put("node", conflict.node());
        spec.put("phase", conflict.phase().name());
        conflict.service().ifPresent(s -> spec.put("service", s.namespace() + "/" + s.name()));
        spec.put(
                "firstSeen",
                conflict.firstSeen().truncatedTo(ChronoUnit.SECONDS).toString());
        spec.put("lastSeen", conflict.lastSeen().truncatedTo(ChronoUnit.SECONDS).toString());
        return AddressObjects.resource(
                "AddressConflict", conflict.address(), version, "lbk8s-speaker", List.of(), spec);
    }

    /** The conflict an object holds; empty for one that is not well-formed (never written by lbk8s). */
    public static Optional<AddressConflict> toConflict(GenericKubernetesResource resource) {
        Optional<AddressObjects.Read> read = AddressObjects.read(resource);
        if (read.isEmpty()
                || !(read.get().spec().get("mac") instanceof String mac)
                || !(read.get().spec().get("node") instanceof String node)) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get().spec();
        AddressConflict.Phase phase =
                "Announced".equals(spec.get("phase")) ? AddressConflict.Phase.Announced : AddressConflict.Phase.Probe;
        Optional<ServiceKey> service = spec.get("service") instanceof String s && s.indexOf('/') > 0
                ? Optional.of(new ServiceKey(s.substring(0, s.indexOf('/')), s.substring(s.indexOf('/') + 1)))
                : Optional.empty();
        Optional<Instant> lastSeen = instant(spec.get("lastSeen"));
        if (lastSeen.isEmpty()) {
            return Optional.empty();
        }
        Instant firstSeen = instant(spec.get("firstSeen"))
                .filter(f -> !f.isAfter(lastSeen.get()))
                .orElse(lastSeen.get());
        return Optional.of(new AddressConflict(
                read.get().address(),
                mac,
                node,
                phase,
                service,
                firstSeen,
                lastSeen.get(),
                read.get().version()));
    }

    private static Optional<Instant> instant(Object value) {
        if (!(value instanceof String text)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}

package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An informer's cache of EndpointSlices that keeps, of each, only what the speaker reads: the Service it belongs to
 * (its {@value ObjectFacts#SERVICE_NAME_LABEL} label) and, of each endpoint, its node and its ready, serving and
 * terminating conditions; not the addresses, ports, target references, zones, hints or managed fields. The speaker
 * keeps every EndpointSlice of the cluster, so this is most of what it holds per Service.
 *
 * <p>What it returns is an EndpointSlice rebuilt from those fields alone: never write it back.
 */
public final class CompactEndpointSliceStore extends CompactStore<EndpointSlice, CompactEndpointSliceStore.Kept> {
    private record KeptEndpoint(String nodeName, Boolean ready, Boolean serving, Boolean terminating) {}

    record Kept(String uid, String resourceVersion, String service, List<KeptEndpoint> endpoints) {}

    @Override
    Kept keep(EndpointSlice slice) {
        ObjectMeta meta = slice.getMetadata();
        Map<String, String> labels = meta.getLabels();
        List<KeptEndpoint> endpoints = slice.getEndpoints() == null
                ? List.of()
                : slice.getEndpoints().stream()
                        .filter(Objects::nonNull)
                        .map(e -> {
                            EndpointConditions c =
                                    Objects.requireNonNullElse(e.getConditions(), new EndpointConditions());
                            return new KeptEndpoint(
                                    intern(e.getNodeName()), c.getReady(), c.getServing(), c.getTerminating());
                        })
                        .toList();
        return new Kept(
                meta.getUid(),
                meta.getResourceVersion(),
                labels == null ? null : labels.get(ObjectFacts.SERVICE_NAME_LABEL),
                endpoints);
    }

    @Override
    EndpointSlice restore(String key, Kept k) {
        ObjectMeta meta = meta(key, k.uid(), k.resourceVersion());
        Map<String, String> labels = new HashMap<>();
        if (k.service() != null) {
            labels.put(ObjectFacts.SERVICE_NAME_LABEL, k.service());
        }
        meta.setLabels(labels);
        List<Endpoint> endpoints = new ArrayList<>();
        for (KeptEndpoint e : k.endpoints()) {
            Endpoint endpoint = new Endpoint();
            endpoint.setNodeName(e.nodeName());
            endpoint.setConditions(new EndpointConditions(e.ready(), e.serving(), e.terminating()));
            endpoints.add(endpoint);
        }
        EndpointSlice slice = new EndpointSlice();
        slice.setMetadata(meta);
        slice.setEndpoints(endpoints);
        return slice;
    }
}

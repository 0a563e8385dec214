package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.service.ServiceView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** Copies what the speaker decides on out of Nodes, speaker Pods, Services and EndpointSlices. */
public final class SpeakerMapping {
    private SpeakerMapping() {}

    public static NodeState nodeState(Node node, Set<String> nodesWithReadySpeaker) {
        List<NodeCondition> conditions =
                node.getStatus() == null || node.getStatus().getConditions() == null
                        ? List.of()
                        : node.getStatus().getConditions();
        boolean ready = conditions.stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        boolean networkUnavailable = conditions.stream()
                .anyMatch(c -> "NetworkUnavailable".equals(c.getType()) && "True".equals(c.getStatus()));
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        return new NodeState(
                node.getMetadata().getName(),
                withoutNulls(labels),
                ready,
                networkUnavailable,
                nodesWithReadySpeaker.contains(node.getMetadata().getName()));
    }

    /** Nodes a speaker Pod is scheduled on, ready or not (the failure detector listens to starting speakers too). */
    public static Set<String> nodesWithSpeaker(Collection<Pod> speakerPods) {
        Set<String> nodes = new HashSet<>();
        for (Pod pod : speakerPods) {
            if (pod.getMetadata().getDeletionTimestamp() == null
                    && pod.getSpec() != null
                    && pod.getSpec().getNodeName() != null) {
                nodes.add(pod.getSpec().getNodeName());
            }
        }
        return nodes;
    }

    /** Nodes running a speaker Pod that is Ready and not being deleted (a deleted Pod hands over at once). */
    public static Set<String> nodesWithReadySpeaker(Collection<Pod> speakerPods) {
        Set<String> nodes = new HashSet<>();
        for (Pod pod : speakerPods) {
            if (pod.getMetadata().getDeletionTimestamp() != null
                    || pod.getSpec() == null
                    || pod.getSpec().getNodeName() == null) {
                continue;
            }
            if (ObjectFacts.isReady(pod)) {
                nodes.add(pod.getSpec().getNodeName());
            }
        }
        return nodes;
    }

    /** Per Service key ("namespace/name"), the endpoints its EndpointSlices list. */
    public static Map<String, List<EndpointState>> endpointsByService(Collection<EndpointSlice> slices) {
        Map<String, List<EndpointState>> result = new HashMap<>();
        for (EndpointSlice slice : slices) {
            sliceEndpoints(slice)
                    .ifPresent(e -> result.computeIfAbsent(e.service(), k -> new ArrayList<>())
                            .addAll(e.endpoints()));
        }
        return result;
    }

    /** The endpoints one EndpointSlice lists for its Service ("namespace/name"). */
    public record SliceEndpoints(String service, List<EndpointState> endpoints) {}

    /** Empty for a slice that names no Service or lists no endpoints. */
    public static Optional<SliceEndpoints> sliceEndpoints(EndpointSlice slice) {
        Map<String, String> labels = slice.getMetadata().getLabels();
        String service = labels == null ? null : labels.get(ObjectFacts.SERVICE_NAME_LABEL);
        if (service == null || slice.getEndpoints() == null) {
            return Optional.empty();
        }
        List<EndpointState> endpoints = new ArrayList<>(slice.getEndpoints().size());
        for (Endpoint endpoint : slice.getEndpoints()) {
            EndpointConditions conditions =
                    Objects.requireNonNullElse(endpoint.getConditions(), new EndpointConditions());
            endpoints.add(new EndpointState(
                    Optional.ofNullable(endpoint.getNodeName()),
                    Optional.ofNullable(conditions.getReady()),
                    Optional.ofNullable(conditions.getServing()),
                    Optional.ofNullable(conditions.getTerminating())));
        }
        return Optional.of(new SliceEndpoints(slice.getMetadata().getNamespace() + "/" + service, endpoints));
    }

    /**
     * What a plan reads of the Services, in one pass over them: each Service's fields are copied out once, and at
     * 10,000 Services a pass costs tens of milliseconds.
     *
     * @param planned the Services the plan announces ({@link PlanFacts#planned}: LoadBalancers of the speaker's class
     *                with an address), as it reads them
     * @param taken   every address a Service's status shows, whatever its class: the look-ahead probes skip them
     */
    public record ServicesRead(List<ServiceState> planned, Set<IpAddress> taken) {}

    public static ServicesRead read(
            Collection<Service> services,
            Optional<String> lbClass,
            Map<String, List<EndpointState>> endpointsByService) {
        List<ServiceState> planned = new ArrayList<>();
        Set<IpAddress> taken = new HashSet<>();
        for (Service service : services) {
            ServiceView view = ServiceMapping.view(service);
            taken.addAll(view.statusIps());
            if (PlanFacts.planned(view, lbClass)) {
                planned.add(serviceState(view, service, endpointsByService));
            }
        }
        return new ServicesRead(planned, taken);
    }

    public static ServiceState serviceState(Service service, Map<String, List<EndpointState>> endpointsByService) {
        return serviceState(ServiceMapping.view(service), service, endpointsByService);
    }

    private static ServiceState serviceState(
            ServiceView view, Service service, Map<String, List<EndpointState>> endpointsByService) {
        String key = view.key().namespace() + "/" + view.key().name();
        return serviceState(view, publishNotReady(service), endpointsByService.getOrDefault(key, List.of()));
    }

    /** The Service as the plan reads it, with {@code endpoints} (those of all its EndpointSlices). */
    static ServiceState serviceState(ServiceView view, boolean publishNotReady, Collection<EndpointState> endpoints) {
        return new ServiceState(
                view.key(),
                view.statusIps(),
                view.externalTrafficPolicy().filter("Local"::equals).isPresent(),
                ServiceEndpoints.of(endpoints, publishNotReady));
    }

    static boolean publishNotReady(Service service) {
        return service.getSpec() != null
                && Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
    }

    private static Map<String, String> withoutNulls(Map<String, String> map) {
        Map<String, String> copy = new HashMap<>();
        map.forEach((k, v) -> {
            if (k != null) {
                copy.put(k, Objects.requireNonNullElse(v, ""));
            }
        });
        return copy;
    }
}

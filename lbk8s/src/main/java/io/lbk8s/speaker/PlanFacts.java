package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.service.ServiceRequests;
import io.lbk8s.service.ServiceView;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the speaker's plan reads of each object its informers watch, read by the same functions the plan uses. A watch
 * event that leaves it equal is not planned for, since the plan would come out the same: a Node's heartbeat, the view
 * a peer's failure detector writes on its Pod, a Service or its EndpointSlice before the Service has an address, the
 * same object again after a relist.
 */
final class PlanFacts {
    /** What a missing object, or one no plan reads, contributes. */
    static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "nothing";
        }
    };

    private record ServiceFacts(Optional<ServiceState> planned, List<IpAddress> statusIps) {}

    private record NodeFacts(NodeState state, Optional<String> internalIp) {}

    private record PodFacts(Set<String> onNode, Set<String> readyOnNode, Optional<String> network) {}

    private record Version(String kind, String resourceVersion) {}

    private final Optional<String> lbClass;
    private final Predicate<String> plannedService;

    /**
     * @param lbClass        the loadBalancerClass this speaker serves
     * @param plannedService whether the Service "namespace/name" is one the plan announces now ({@link #planned}):
     *                       only those Services' EndpointSlices matter, and a Service that becomes planned is planned
     *                       for with its EndpointSlices as they are then
     */
    PlanFacts(Optional<String> lbClass, Predicate<String> plannedService) {
        this.lbClass = lbClass;
        this.plannedService = plannedService;
    }

    /** Whether a plan announces {@code service}: a LoadBalancer of this speaker's class with an address in its status. */
    static boolean planned(Service service, Optional<String> lbClass) {
        return planned(ServiceMapping.view(service), lbClass);
    }

    static boolean planned(ServiceView view, Optional<String> lbClass) {
        return view.isLoadBalancer()
                && ServiceRequests.served(view, lbClass)
                && !view.statusIps().isEmpty();
    }

    /** Whether going from {@code before} to {@code after} (null: absent) may change the plan. */
    boolean changes(Object before, Object after) {
        return !of(before).equals(of(after));
    }

    Object of(Object object) {
        return switch (object) {
            case null -> NONE;
            case Service service -> service(service);
            case EndpointSlice slice -> endpoints(slice);
            case Node node -> new NodeFacts(SpeakerMapping.nodeState(node, Set.of()), ObjectFacts.internalIp(node));
            case Pod pod -> speakerPod(pod);
            // the configuration: read whole, so any new version counts; the same version again (a relist) does not
            case HasMetadata config
            when config.getMetadata() != null && config.getMetadata().getResourceVersion() != null ->
                new Version(config.getKind(), config.getMetadata().getResourceVersion());
            default -> new Object(); // equal to nothing: planned for
        };
    }

    /** The Service as the plan reads it if it announces it, and its addresses, which the look-ahead probes skip. */
    private Object service(Service service) {
        List<IpAddress> statusIps = ServiceMapping.statusIps(service);
        if (statusIps.isEmpty()) {
            return NONE;
        }
        Optional<ServiceState> planned = planned(service, lbClass)
                ? Optional.of(SpeakerMapping.serviceState(service, Map.of()))
                : Optional.empty();
        return new ServiceFacts(planned, statusIps);
    }

    private Object endpoints(EndpointSlice slice) {
        Map<String, List<EndpointState>> endpoints = SpeakerMapping.endpointsByService(List.of(slice));
        return endpoints.keySet().stream().anyMatch(plannedService) ? endpoints : NONE;
    }

    private static Object speakerPod(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        return new PodFacts(
                SpeakerMapping.nodesWithSpeaker(List.of(pod)),
                SpeakerMapping.nodesWithReadySpeaker(List.of(pod)),
                Optional.ofNullable(annotations == null ? null : annotations.get(NodeNetwork.ANNOTATION)));
    }
}

package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which nodes may announce a Service given its endpoints, MetalLB's layer-2 rule: none while no endpoint can serve (a
 * Service without EndpointSlices, say selector-less, or whose Pods are not ready), then any node with
 * {@code externalTrafficPolicy: Cluster}, and with {@code Local} only the nodes that hold one.
 *
 * @param anyServing   at least one endpoint can take traffic, wherever it is
 * @param nodesServing the nodes holding such an endpoint
 */
public record ServiceEndpoints(boolean anyServing, Set<String> nodesServing) {

    public static final ServiceEndpoints NONE = new ServiceEndpoints(false, Set.of());

    public ServiceEndpoints {
        nodesServing = Set.copyOf(nodesServing);
    }

    public static ServiceEndpoints of(Collection<EndpointState> endpoints, boolean publishNotReadyAddresses) {
        boolean any = false;
        Set<String> nodes = new TreeSet<>();
        for (EndpointState endpoint : endpoints) {
            if (endpoint.canServe(publishNotReadyAddresses)) {
                any = true;
                endpoint.node().ifPresent(nodes::add);
            }
        }
        return new ServiceEndpoints(any, nodes);
    }

    /** Why no node at all may announce {@code ip} of the Service, a sentence for its Warning event; empty if some may. */
    public Optional<String> whyNoNode(IpAddress ip, boolean localTrafficPolicy) {
        if (localTrafficPolicy && nodesServing.isEmpty()) {
            return Optional.of(
                    "the Service has no ready endpoint, and with externalTrafficPolicy: Local only a node with one may announce "
                            + ip);
        }
        if (!anyServing) {
            return Optional.of(
                    "the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no node announces " + ip
                            + "; it is announced as soon as one is ready");
        }
        return Optional.empty();
    }

    /** Whether {@code node} may announce the Service, as far as its endpoints go. */
    public boolean allows(String node, boolean localTrafficPolicy) {
        return anyServing && (!localTrafficPolicy || nodesServing.contains(node));
    }
}

package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.ServiceKey;
import java.util.List;
import java.util.Set;

/**
 * A LoadBalancer Service this speaker serves, reduced to what announcing needs: its assigned addresses (from
 * status), whether traffic must stay on nodes with an endpoint, and which nodes have a ready endpoint.
 */
public record ServiceState(
        ServiceKey key,
        List<IpAddress> ips,
        boolean localTrafficPolicy,
        Set<String> nodesWithReadyEndpoints) {

    public ServiceState {
        ips = ips.stream().sorted().distinct().toList(); // IPv4 first: the first address is the hash key
        nodesWithReadyEndpoints = Set.copyOf(nodesWithReadyEndpoints);
    }
}

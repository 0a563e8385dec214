package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.ServiceKey;
import java.util.List;

/**
 * A LoadBalancer Service this speaker serves, reduced to what announcing needs: its assigned addresses (from
 * status), whether traffic must stay on nodes with an endpoint, and which of its endpoints can take traffic.
 */
public record ServiceState(
        ServiceKey key, List<IpAddress> ips, boolean localTrafficPolicy, ServiceEndpoints endpoints) {

    public ServiceState {
        ips = ips.stream().sorted().distinct().toList(); // IPv4 first: the first address is the hash key
    }

    /** The same Service with other endpoints (its EndpointSlices changed, the Service itself did not). */
    public ServiceState withEndpoints(ServiceEndpoints endpoints) {
        return new ServiceState(key, ips, localTrafficPolicy, endpoints);
    }
}

package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.ServiceKey;
import java.util.List;

/** The addresses a Service holds, all from one pool (IPv4 first when dual-stack). */
public record Assignment(ServiceKey service, String pool, List<IpAddress> ips) {
    public Assignment {
        ips = List.copyOf(ips);
    }
}

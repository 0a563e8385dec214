package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.lbk8s.address.IpAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What install needs to know of a Node: how to recognise the distribution, its addresses, and the exclude label. */
public record NodeFacts(
        String name,
        Map<String, String> labels,
        Map<String, String> annotations,
        String osImage,
        String providerId,
        List<IpAddress> internalIps) {

    public static final String EXCLUDE_LB_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";

    public NodeFacts {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        internalIps = List.copyOf(internalIps);
    }

    public boolean excludedFromLoadBalancers() {
        return labels.containsKey(EXCLUDE_LB_LABEL);
    }

    public static NodeFacts of(Node node) {
        var meta = node.getMetadata();
        var status = Optional.ofNullable(node.getStatus());
        List<IpAddress> ips = status.map(s -> s.getAddresses()).orElse(List.of()).stream()
                .filter(a -> "InternalIP".equals(a.getType()))
                .map(NodeAddress::getAddress)
                .map(IpAddress::parse)
                .flatMap(Optional::stream)
                .toList();
        return new NodeFacts(
                meta.getName(),
                Optional.ofNullable(meta.getLabels()).orElse(Map.of()),
                Optional.ofNullable(meta.getAnnotations()).orElse(Map.of()),
                status.map(s -> s.getNodeInfo()).map(i -> i.getOsImage()).orElse(""),
                Optional.ofNullable(node.getSpec()).map(s -> s.getProviderID()).orElse(""),
                ips);
    }
}

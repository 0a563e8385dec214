package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.ipam.Exclusions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The API objects {@link Exclusions} reads, as its inputs: Nodes' addresses, the speakers' {@link NodeNetwork}
 * annotation (by the Pod's node), and the endpoints of the API server (the EndpointSlices of Service
 * default/kubernetes). The controller informs on the same sources that {@code lbk8s status} lists.
 */
public final class ClusterAddresses {
    private ClusterAddresses() {}

    public static final String API_SERVER_NAMESPACE = "default";
    public static final String API_SERVER_SERVICE = "kubernetes";

    /** The EndpointSlices of the API server's Service. */
    public static FilterWatchListDeletable<EndpointSlice, EndpointSliceList, Resource<EndpointSlice>> apiServerSlices(
            KubernetesClient client) {
        return client.discovery()
                .v1()
                .endpointSlices()
                .inNamespace(API_SERVER_NAMESPACE)
                .withLabel(ObjectFacts.SERVICE_NAME_LABEL, API_SERVER_SERVICE);
    }

    public static Exclusions.Inputs inputs(
            List<Node> nodes, List<Pod> speakerPods, List<EndpointSlice> apiServerSlices) {
        List<Exclusions.NodeAddress> addresses = new ArrayList<>();
        for (Node node : nodes) {
            if (node.getStatus() == null || node.getStatus().getAddresses() == null) {
                continue;
            }
            node.getStatus()
                    .getAddresses()
                    .forEach(a -> addresses.add(
                            new Exclusions.NodeAddress(node.getMetadata().getName(), a.getType(), a.getAddress())));
        }
        Map<String, NodeNetwork> networks = new TreeMap<>();
        for (Pod pod : speakerPods) {
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            Map<String, String> annotations = pod.getMetadata().getAnnotations();
            if (node == null || annotations == null) {
                continue;
            }
            NodeNetwork.parse(annotations.get(NodeNetwork.ANNOTATION)).ifPresent(n -> networks.put(node, n));
        }
        List<String> apiServer = new ArrayList<>();
        for (EndpointSlice slice : apiServerSlices) {
            Optional.ofNullable(slice.getEndpoints())
                    .orElse(List.of())
                    .forEach(e -> Optional.ofNullable(e.getAddresses())
                            .orElse(List.of())
                            .forEach(apiServer::add));
        }
        return new Exclusions.Inputs(addresses, networks, apiServer);
    }
}

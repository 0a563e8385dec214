package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.address.NodeNetworks;
import java.util.List;
import java.util.Map;

/**
 * The objects a kind cluster on the Docker network 172.18.0.0/16 shows: Nodes with their InternalIP, speaker Pods
 * with their node-network annotation (eth0 in 172.18.0.0/16, gateway 172.18.0.1), and the API server's EndpointSlice.
 */
public final class KindNetwork {
    public static final String GATEWAY = "172.18.0.1";

    private final KubernetesClient client;
    private final String namespace;

    public KindNetwork(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** A Node with these addresses ("InternalIP", "172.18.0.3", ...) and its speaker Pod on eth0 with the InternalIP. */
    public void node(String name, String... typesAndAddresses) {
        String internal = bareNode(name, typesAndAddresses);
        if (internal != null) {
            speaker(name, internal + "/16", GATEWAY);
        }
    }

    /** A Node with these addresses and no speaker (yet); its first InternalIP. */
    public String bareNode(String name, String... typesAndAddresses) {
        NodeBuilder node = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus();
        String internal = null;
        for (int i = 0; i < typesAndAddresses.length; i += 2) {
            node.editStatus()
                    .addToAddresses(new NodeAddressBuilder()
                            .withType(typesAndAddresses[i])
                            .withAddress(typesAndAddresses[i + 1])
                            .build())
                    .endStatus();
            if (typesAndAddresses[i].equals("InternalIP") && internal == null) {
                internal = typesAndAddresses[i + 1];
            }
        }
        client.nodes().resource(node.build()).create();
        return internal;
    }

    /** The node's speaker Pod, with its node-network annotation: eth0 with this address/prefix, this gateway. */
    public void speaker(String node, String prefix, String gateway) {
        NodeNetwork network = new NodeNetwork(
                List.of(new NodeNetwork.Link("eth0", "02:42:ac:12:00:02", NodeNetworks.prefixes(prefix))),
                NodeNetworks.gateways(gateway));
        client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("speaker-" + node)
                        .withLabels(ClusterNames.SPEAKER_POD_LABELS)
                        .withAnnotations(Map.of(NodeNetwork.ANNOTATION, network.toAnnotation()))
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName("speaker")
                        .withImage("x")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
    }

    /** Adds an address to a Node, as the kubelet would report a new one. */
    public void addAddress(String node, String type, String address) {
        Node current = client.nodes().withName(node).get();
        current.getStatus()
                .getAddresses()
                .add(new NodeAddressBuilder()
                        .withType(type)
                        .withAddress(address)
                        .build());
        client.nodes().resource(current).updateStatus();
    }

    /** The EndpointSlice of Service default/kubernetes. */
    public void apiServer(String... addresses) {
        client.discovery()
                .v1()
                .endpointSlices()
                .inNamespace("default")
                .resource(new EndpointSliceBuilder()
                        .withNewMetadata()
                        .withName("kubernetes")
                        .withNamespace("default")
                        .withLabels(Map.of("kubernetes.io/service-name", "kubernetes"))
                        .endMetadata()
                        .withAddressType("IPv4")
                        .addNewEndpoint()
                        .withAddresses(addresses)
                        .endEndpoint()
                        .addNewPort()
                        .withName("https")
                        .withPort(6443)
                        .withProtocol("TCP")
                        .endPort()
                        .build())
                .create();
    }
}

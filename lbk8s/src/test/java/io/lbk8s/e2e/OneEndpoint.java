package io.lbk8s.e2e;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.util.Map;

/** For a Service without a selector, whose endpoints nobody else writes: one endpoint, on one node. */
final class OneEndpoint {
    private OneEndpoint() {}

    /** The Service's one endpoint, on {@code node}, ready or not, as the EndpointSlice controller writes a Pod's. */
    static void on(Sandbox cluster, String service, TestNode node, boolean ready) {
        var slice = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(service + "-slice")
                .withNamespace("default")
                .withLabels(Map.of("kubernetes.io/service-name", service))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.0.5")
                .withNodeName(node.name())
                .withNewConditions()
                .withReady(ready)
                .withServing(ready)
                .withTerminating(false)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("http")
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .build();
        cluster.client.discovery().v1().endpointSlices().resource(slice).createOr(r -> r.update());
    }
}

package io.lbk8s.testkit.sandbox;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EndpointSlice controller's part in the sandbox. Every node runs the backend (reached through the node's
 * kube-proxy rules), as a DaemonSet of Pods would: a Service with a selector gets, per IP family, an EndpointSlice
 * listing one ready endpoint on each node. A Service without a selector gets none, as in Kubernetes: whoever made it
 * writes its EndpointSlices (a test, to make an endpoint ready or not).
 */
final class EndpointSliceController implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EndpointSliceController.class);
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
    static final String MANAGED_BY = "endpointslice-controller.k8s.io";

    private final KubernetesClient client;
    private final List<TestNode> nodes;
    private final SharedIndexInformer<Service> services;

    EndpointSliceController(KubernetesClient client, List<TestNode> nodes) {
        this.client = client;
        this.nodes = List.copyOf(nodes);
        this.services = client.services().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service service) {
                write(service);
            }

            @Override
            public void onUpdate(Service before, Service after) {
                // the controller's status writes change nothing here
                if (!Objects.equals(before.getSpec(), after.getSpec())) {
                    write(after);
                }
            }

            @Override
            public void onDelete(Service service, boolean unknownFinalState) {
                // the garbage collector's part: the slices are owned by the Service
                client.discovery()
                        .v1()
                        .endpointSlices()
                        .inNamespace(service.getMetadata().getNamespace())
                        .withLabel(SERVICE_NAME_LABEL, service.getMetadata().getName())
                        .withLabel(MANAGED_BY_LABEL, MANAGED_BY)
                        .delete();
            }
        });
    }

    private void write(Service service) {
        Map<String, String> selector = service.getSpec().getSelector();
        if (selector == null || selector.isEmpty()) {
            return;
        }
        List<String> families = service.getSpec().getIpFamilies() == null
                        || service.getSpec().getIpFamilies().isEmpty()
                ? List.of("IPv4")
                : service.getSpec().getIpFamilies();
        try {
            for (String family : families) {
                client.discovery()
                        .v1()
                        .endpointSlices()
                        .resource(slice(service, family))
                        .createOr(NonDeletingOperation::update);
            }
        } catch (KubernetesClientException e) {
            log.warn(
                    "could not write the EndpointSlices of {}/{}: {}",
                    service.getMetadata().getNamespace(),
                    service.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private EndpointSlice slice(Service service, String family) {
        boolean v6 = "IPv6".equals(family);
        var slice = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(service.getMetadata().getName() + "-" + family.toLowerCase(Locale.ROOT))
                .withNamespace(service.getMetadata().getNamespace())
                .withLabels(Map.of(SERVICE_NAME_LABEL, service.getMetadata().getName(), MANAGED_BY_LABEL, MANAGED_BY))
                .addNewOwnerReference()
                .withApiVersion("v1")
                .withKind("Service")
                .withName(service.getMetadata().getName())
                .withUid(service.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .endOwnerReference()
                .endMetadata()
                .withAddressType(family);
        for (TestNode node : nodes) {
            slice.addNewEndpoint()
                    .withAddresses(node.addressText(v6))
                    .withNodeName(node.name())
                    .withNewConditions()
                    .withReady(true)
                    .withServing(true)
                    .withTerminating(false)
                    .endConditions()
                    .endEndpoint();
        }
        for (ServicePort port : Objects.requireNonNullElse(service.getSpec().getPorts(), List.<ServicePort>of())) {
            slice.addNewPort()
                    .withName(port.getName())
                    .withPort(TestNetwork.BACKEND_PORT)
                    .withProtocol(port.getProtocol())
                    .endPort();
        }
        return slice.build();
    }

    @Override
    public void close() {
        services.close();
    }
}

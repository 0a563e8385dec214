package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.ServiceMapping;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** {@code install --verify}: a throwaway LoadBalancer Service must get an address, and it should answer. */
public final class Verifier {

    public static final String SERVICE_NAME = "lbk8s-verify";
    private static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
    /** tcpmux: nothing listens there on a node. */
    private static final int CLOSED_PORT = 1;

    public sealed interface Outcome {
        boolean ok();

        record Verified(List<IpAddress> addresses, Reachability.Verdict verdict) implements Outcome {
            public boolean ok() {
                return true;
            }
        }

        record NoAddress(String why) implements Outcome {
            public boolean ok() {
                return false;
            }
        }
    }

    private final KubernetesClient client;
    private final Reachability reachability;

    public Verifier(KubernetesClient client, Reachability reachability) {
        this.client = client;
        this.reachability = reachability;
    }

    public Outcome verify(
            String namespace, Optional<String> lbClass, Duration timeout, Rollout.Sleeper sleeper, Consumer<String> say)
            throws InterruptedException {
        var services = client.services().inNamespace(namespace);
        Service service = new ServiceBuilder()
                .withNewMetadata()
                .withName(SERVICE_NAME)
                .withNamespace(namespace)
                .withLabels(Manifests.labels("verify"))
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withLoadBalancerClass(lbClass.orElse(null))
                // no selector: its one endpoint is written below
                .addNewPort()
                .withName("probe")
                .withPort(80)
                .endPort()
                .endSpec()
                .build();
        if (services.withName(SERVICE_NAME).get() != null) {
            services.withName(SERVICE_NAME).delete(); // left over by an interrupted run
        }
        Service created = services.resource(service).create();
        try {
            giveItAnEndpoint(created, say);
            say.accept("verify: created service " + namespace + "/" + SERVICE_NAME + ", waiting for its address");
            long deadline = System.nanoTime() + timeout.toNanos();
            List<IpAddress> ips = List.of();
            while (true) {
                Service current = services.withName(SERVICE_NAME).get();
                ips = current == null ? List.of() : ServiceMapping.statusIps(current);
                if (!ips.isEmpty() || System.nanoTime() > deadline) {
                    break;
                }
                sleeper.sleep(Duration.ofMillis(250));
            }
            if (ips.isEmpty()) {
                return new Outcome.NoAddress(
                        "the test Service got no address within " + timeout.toSeconds() + "s; see `lbk8s status svc/"
                                + SERVICE_NAME + " -n " + namespace + "` (run install with --verify again to retry)");
            }
            say.accept("verify: service got " + ips);
            Reachability.Verdict verdict = reachability.check(ips.getFirst(), 80);
            return new Outcome.Verified(ips, verdict);
        } finally {
            client.discovery()
                    .v1()
                    .endpointSlices()
                    .inNamespace(namespace)
                    .withName(SERVICE_NAME)
                    .delete();
            services.withName(SERVICE_NAME).delete();
            say.accept("verify: deleted the test service");
        }
    }

    /**
     * The speakers announce only a Service with a ready endpoint (as MetalLB's do). The test Service's one is a node's
     * own address on a port nothing listens on: kube-proxy forwards the probe there, and the node refuses it, which
     * shows the address answers. Without a node address, or the right to write EndpointSlices, the probe finds no
     * answer and says so.
     */
    private void giveItAnEndpoint(Service service, Consumer<String> say) {
        Optional<Node> node = client.nodes().list().getItems().stream()
                .filter(n -> ObjectFacts.internalIp(n).isPresent())
                .findFirst();
        if (node.isEmpty()) {
            say.accept(
                    "verify: no node has an InternalIP, so the test service gets no endpoint and no node announces it");
            return;
        }
        String address = ObjectFacts.internalIp(node.get()).orElseThrow();
        EndpointSlice slice = new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(SERVICE_NAME)
                .withNamespace(service.getMetadata().getNamespace())
                .withLabels(Map.of(ObjectFacts.SERVICE_NAME_LABEL, SERVICE_NAME, MANAGED_BY_LABEL, "lbk8s-install"))
                .addNewOwnerReference()
                .withApiVersion("v1")
                .withKind("Service")
                .withName(SERVICE_NAME)
                .withUid(service.getMetadata().getUid())
                .endOwnerReference()
                .endMetadata()
                .withAddressType(address.contains(":") ? "IPv6" : "IPv4")
                .addNewEndpoint()
                .withAddresses(address)
                .withNodeName(node.get().getMetadata().getName())
                .withNewConditions()
                .withReady(true)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("probe")
                .withPort(CLOSED_PORT)
                .withProtocol("TCP")
                .endPort()
                .build();
        try {
            client.discovery().v1().endpointSlices().resource(slice).create();
            say.accept("verify: gave it an endpoint, " + address + ":" + CLOSED_PORT + " on node "
                    + node.get().getMetadata().getName() + " (nothing listens there: the probe is refused)");
        } catch (KubernetesClientException e) {
            say.accept(
                    "verify: could not give the test service an endpoint, so no node announces it: " + e.getMessage());
        }
    }
}

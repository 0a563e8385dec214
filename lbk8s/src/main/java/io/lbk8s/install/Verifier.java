package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.ServiceMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** {@code install --verify}: a throwaway LoadBalancer Service must get an address, and it should answer. */
public final class Verifier {

    public static final String SERVICE_NAME = "lbk8s-verify";

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

    public Outcome verify(String namespace, Optional<String> lbClass, Duration timeout, Rollout.Sleeper sleeper,
            Consumer<String> say) throws InterruptedException {
        var services = client.services().inNamespace(namespace);
        Service service = new ServiceBuilder().withNewMetadata().withName(SERVICE_NAME).withNamespace(namespace)
                .withLabels(Manifests.labels("verify")).endMetadata()
                .withNewSpec().withType("LoadBalancer").withLoadBalancerClass(lbClass.orElse(null))
                // no selector: nothing behind it, so the probe reaches the node's kube-proxy, which refuses
                .addNewPort().withName("probe").withPort(80).endPort()
                .endSpec().build();
        if (services.withName(SERVICE_NAME).get() != null) {
            services.withName(SERVICE_NAME).delete(); // left over by an interrupted run
        }
        services.resource(service).create();
        try {
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
                return new Outcome.NoAddress("the test Service got no address within " + timeout.toSeconds()
                        + "s; see `lbk8s status svc/" + SERVICE_NAME + " -n " + namespace + "` (run install with --verify again to retry)");
            }
            say.accept("verify: service got " + ips);
            Reachability.Verdict verdict = reachability.check(ips.getFirst(), 80);
            return new Outcome.Verified(ips, verdict);
        } finally {
            services.withName(SERVICE_NAME).delete();
            say.accept("verify: deleted the test service");
        }
    }
}

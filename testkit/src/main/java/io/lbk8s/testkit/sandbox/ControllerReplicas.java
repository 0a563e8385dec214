package io.lbk8s.testkit.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.testkit.ApiServer;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.cluster.FreshApiServer;
import io.lbk8s.testkit.cluster.KubernetesBuild;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The controller as a highly available Deployment runs it, without a network: an API server (see {@link #start}),
 * a {@link LoopbackProxy} in front of it (so that a test can make the API unreachable for the controllers while its own
 * {@link #client} still reaches the server), and controller replicas ({@link ControllerReplica}) as processes.
 * Chaos tests and the HA benchmark run on it; closing it stops every replica it started.
 */
public final class ControllerReplicas implements AutoCloseable {
    public static final String NAMESPACE = Sandbox.NAMESPACE;
    /** The Lease the replicas elect their leader with. */
    public static final String LEASE = "lbk8s-controller";

    private static final ResourceDefinitionContext IP_ADDRESS_POOLS = new ResourceDefinitionContext.Builder()
            .withGroup("metallb.io")
            .withVersion("v1beta1")
            .withKind("IPAddressPool")
            .withPlural("ipaddresspools")
            .withNamespaced(true)
            .build();

    public final ApiServer server;
    /** The test's own client, straight to the server (not through the proxy). */
    public final KubernetesClient client;
    /** What the replicas reach the server through. */
    public final LoopbackProxy proxy;

    public final Path logs;
    private final Path kubeconfig;
    private final List<ControllerReplica> replicas = new CopyOnWriteArrayList<>();

    private ControllerReplicas(ApiServer server, LoopbackProxy proxy, Path logs) {
        this.server = server;
        this.client = server.client();
        this.proxy = proxy;
        this.logs = logs;
        this.kubeconfig = server.writeKubeconfigThroughProxy(logs.resolve("kubeconfig"), proxy.port());
    }

    /**
     * The server with lbk8s's CRDs and the namespaces lbk8s-system and default, and its proxy; no replica yet. The
     * server is the real kube-apiserver when there is a Kubernetes build ({@code ./test} makes one), else the test API
     * server (a benchmark on a machine without one).
     */
    public static ControllerReplicas start(Path logs) throws IOException {
        Files.createDirectories(logs);
        ApiServer server = KubernetesBuild.find().isPresent()
                ? FreshApiServer.startWithCrds(Sandbox.REPO.resolve("deploy/crds"))
                : TestApiServer.start();
        try {
            server.createCrds(Sandbox.REPO.resolve("deploy/crds"));
            for (String namespace : List.of(NAMESPACE, "default")) {
                server.ensureNamespace(namespace);
            }
            URI url = URI.create(server.url());
            return new ControllerReplicas(
                    server, LoopbackProxy.to(new InetSocketAddress(url.getHost(), url.getPort())), logs);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * The flags that make a replica lead without an election, as two replicas both believing they lead would. The
     * one place that names election flags, so that they follow the controller's command line.
     */
    public static List<String> electionOff() {
        return List.of("--leader-elect=false");
    }

    /** Starts a replica named {@code name} (its POD_NAME, hence its identity in the election) with extra flags. */
    public ControllerReplica startReplica(String name, List<String> flags) {
        var replica = new ControllerReplica(name, kubeconfig, NAMESPACE, flags, logs);
        replicas.add(replica);
        replica.start();
        return replica;
    }

    public List<ControllerReplica> replicas() {
        return List.copyOf(replicas);
    }

    /** An IPAddressPool in lbk8s-system, as a user applies it. */
    public void pool(String name, String... addresses) {
        GenericKubernetesResource pool = new GenericKubernetesResourceBuilder()
                .withApiVersion("metallb.io/v1beta1")
                .withKind("IPAddressPool")
                .withNewMetadata()
                .withName(name)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("addresses", List.of(addresses))))
                .build();
        client.genericKubernetesResources(IP_ADDRESS_POOLS)
                .inNamespace(NAMESPACE)
                .resource(pool)
                .create();
    }

    /** A LoadBalancer Service default/{@code name} on port 80, without node ports (thousands would run out of them). */
    public void createService(String name) {
        client.services()
                .inNamespace("default")
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withAllocateLoadBalancerNodePorts(false)
                        .withSelector(Map.of("app", name))
                        .addNewPort()
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
    }

    public void deleteService(String name) {
        client.services().inNamespace("default").withName(name).delete();
    }

    /**
     * Creates the Services {@code names} from {@code threads} virtual threads at once, each waiting {@code gap}
     * between two of its creates (zero: as fast as the server takes them); returns when all are created.
     */
    public void createConcurrently(List<String> names, int threads, Duration gap) throws InterruptedException {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> creators = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            creators.add(Thread.ofVirtual().name("create-" + t).start(() -> {
                try {
                    for (int i = first; i < names.size(); i += threads) {
                        createService(names.get(i));
                        Thread.sleep(gap);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread creator : creators) {
            creator.join();
        }
        if (!failures.isEmpty()) {
            var failure = new IllegalStateException(failures.size() + " creator(s) failed", failures.getFirst());
            failures.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /** Who the Lease names as leader (empty without a Lease, i.e. without an election). */
    public Optional<String> leaseHolder() {
        Lease lease = client.leases().inNamespace(NAMESPACE).withName(LEASE).get();
        return Optional.ofNullable(lease).map(Lease::getSpec).map(s -> s.getHolderIdentity());
    }

    /**
     * The replica that leads now: running, its /readyz saying it leads, and named by the Lease when there is one.
     * Empty while no replica or more than one would qualify.
     */
    public Optional<ControllerReplica> leader() {
        Optional<String> holder = leaseHolder();
        List<ControllerReplica> leading = replicas.stream()
                .filter(ControllerReplica::isAlive)
                .filter(r -> holder.map(r.name()::equals).orElse(true))
                .filter(ControllerReplica::saysLeading)
                .toList();
        return leading.size() == 1 ? Optional.of(leading.getFirst()) : Optional.empty();
    }

    /** Waits until each of {@code replicas} says it leads; fails at once, with its log, if one exits. */
    public void awaitLeading(Duration timeout, ControllerReplica... replicas) {
        Sandbox.poll(List.of(replicas) + " to lead", timeout, () -> {
            for (ControllerReplica r : replicas) {
                if (!r.isAlive()) {
                    throw new IllegalStateException(r + " exited; its log ends with\n" + r.logTail(10));
                }
            }
            return List.of(replicas).stream().allMatch(ControllerReplica::saysLeading);
        });
    }

    /** Waits (polling, up to {@code timeout}) for a leader that satisfies {@code which}. */
    public ControllerReplica awaitLeader(Duration timeout, Predicate<ControllerReplica> which) {
        ControllerReplica[] found = new ControllerReplica[1];
        try {
            Sandbox.poll("a leader", timeout, () -> {
                found[0] = leader().filter(which).orElse(null);
                return found[0] != null;
            });
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    e.getMessage() + "; Lease holder " + leaseHolder().orElse("none") + "; "
                            + replicas.stream()
                                    .map(r -> r + ": /readyz "
                                            + r.readyz().map(Object::toString).orElse("not answering")
                                            + ", log ends with\n" + r.logTail(10))
                                    .toList(),
                    e);
        }
        return found[0];
    }

    @Override
    public void close() {
        replicas.forEach(ControllerReplica::stop);
        proxy.close();
        server.close();
    }
}

package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.lbk8s.controller.Controller;
import io.lbk8s.controller.ControllerSettings;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.sandbox.Sandbox;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Controller figures, printed as table rows: time from a Service's creation to its IP in status (in-process API),
 * and total time plus controller RSS for many Services (the controller as its own process, as it runs in a pod).
 */
public final class ControllerBenchmark {
    /** The controller's JVM flags for the figures (see docs/configuration.md); JAVA_OPTS overrides them. */
    static final String CONTROLLER_JAVA_OPTS =
            "-Xmx64m -XX:ReservedCodeCacheSize=24m -XX:CICompilerCount=1 -XX:MaxDirectMemorySize=32m";

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "latency";
        switch (mode) {
            case "latency" -> latency(Integer.parseInt(args.length > 1 ? args[1] : "1000"));
            case "scale" -> scale(Integer.parseInt(args.length > 1 ? args[1] : "10000"), Path.of(args[2]), false);
            case "waiting" -> scale(Integer.parseInt(args.length > 1 ? args[1] : "10000"), Path.of(args[2]), true);
            default -> throw new IllegalArgumentException("mode is latency, scale or waiting");
        }
    }

    /** The CRDs of deploy/crds (the controller needs its IPAddressClaims), the namespaces and a ConfigMap pool. */
    static void prepare(TestApiServer server, int poolSize) throws IOException {
        server.createCrds(Sandbox.REPO.resolve("deploy/crds"));
        KubernetesClient client = server.client();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("lbk8s-system")
                        .endMetadata()
                        .build())
                .create();
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("default")
                        .endMetadata()
                        .build())
                .create();
        String range = poolSize <= 65536 ? "10.20.0.0/16" : "10.0.0.0/8";
        client.configMaps()
                .inNamespace("lbk8s-system")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("lbk8s-config")
                        .endMetadata()
                        .withData(Map.of("config.yaml", "pools:\n- name: bench\n  addresses: [\"" + range + "\"]\n"))
                        .build())
                .create();
    }

    /**
     * What settling the configuration costs: {@code rounds} times, a pool is added to the ConfigMap and a Service
     * created right after it, as one {@code kubectl apply} of both would.
     */
    private static void afterConfigChange(KubernetesClient client, IpWatch watch, int rounds)
            throws InterruptedException {
        List<Long> micros = new ArrayList<>();
        StringBuilder pools = new StringBuilder("pools:\n- name: bench\n  addresses: [\"10.20.0.0/16\"]\n");
        for (int i = 0; i < rounds; i++) {
            pools.append("- name: extra-")
                    .append(i)
                    .append("\n  autoAssign: false\n  addresses: [\"10.30.")
                    .append(i)
                    .append(".0/24\"]\n");
            String config = pools.toString();
            String name = "after-config-" + i;
            watch.expect(1);
            long start = System.nanoTime();
            client.configMaps()
                    .inNamespace("lbk8s-system")
                    .withName("lbk8s-config")
                    .edit(c -> new ConfigMapBuilder(c)
                            .withData(Map.of("config.yaml", config))
                            .build());
            client.services().inNamespace("default").resource(service(name)).create();
            if (!watch.latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " got no IP within 10 s");
            }
            micros.add((watch.seenAt.get(name) - start) / 1_000);
            Thread.sleep(500); // the next round starts from a settled configuration
        }
        Collections.sort(micros);
        System.out.printf(
                "| controller | configuration change then a Service at once (one kubectl apply) -> IP in status, p50 / max of %d"
                        + " (the settling of configuration changes) | %.1f ms / %.1f ms |%n",
                rounds, micros.get(micros.size() / 2) / 1000.0, micros.getLast() / 1000.0);
    }

    static Service service(String name) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                // Without this a real API server, like ours, runs out of node ports after 2,768 Services.
                .withNewSpec()
                .withType("LoadBalancer")
                .withAllocateLoadBalancerNodePorts(false)
                .addNewPort()
                .withPort(80)
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }

    /** Watches Services and records when each first shows an IP. */
    static final class IpWatch implements ResourceEventHandler<Service> {
        final Map<String, Long> seenAt = new ConcurrentHashMap<>();
        volatile CountDownLatch latch = new CountDownLatch(0);

        void expect(int count) {
            latch = new CountDownLatch(count);
        }

        private void check(Service s) {
            if (!ServiceMapping.statusIps(s).isEmpty()
                    && seenAt.putIfAbsent(s.getMetadata().getName(), System.nanoTime()) == null) {
                latch.countDown();
            }
        }

        @Override
        public void onAdd(Service s) {
            check(s);
        }

        @Override
        public void onUpdate(Service o, Service s) {
            check(s);
        }

        @Override
        public void onDelete(Service s, boolean unknown) {}
    }

    static void latency(int count) throws Exception {
        try (TestApiServer server = TestApiServer.start();
                KubernetesClient client = server.client();
                KubernetesClient controllerClient = server.newClient()) {
            prepare(server, count);
            var controller = new Controller(
                    controllerClient,
                    new ControllerSettings("lbk8s-system", Optional.empty()),
                    new SimpleMeterRegistry());
            controller.start();
            controller.lead();
            var watch = new IpWatch();
            var informer = client.services().inNamespace("default").inform(watch);
            List<Long> micros = new ArrayList<>();
            for (int i = 0; i < count + 50; i++) {
                String name = "lat-" + i;
                watch.expect(1);
                long start = System.nanoTime();
                client.services().inNamespace("default").resource(service(name)).create();
                if (!watch.latch.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(name + " got no IP within 10 s");
                }
                if (i >= 50) { // the first 50 warm the JIT and are not counted
                    micros.add((watch.seenAt.get(name) - start) / 1_000);
                }
            }
            Collections.sort(micros);
            System.out.printf(
                    "| controller | Service created -> IP in status, p50 (%d Services, in-process API) | %.1f ms |%n",
                    count, micros.get(micros.size() / 2) / 1000.0);
            System.out.printf(
                    "| controller | Service created -> IP in status, p99 (%d Services, in-process API) | %.1f ms |%n",
                    count, micros.get((int) Math.ceil(micros.size() * 0.99) - 1) / 1000.0);
            afterConfigChange(client, watch, 20);
            informer.close();
            controller.close();
        }
    }

    /** The controller runs as its own JVM with the flags of its Deployment; this process is the API server. */
    /**
     * {@code count} Services created while the controller runs (or, {@code waiting}, created before it starts, which
     * spares the test API server the controller's watch traffic during the creates: the figure that reaches 10,000).
     */
    static void scale(int count, Path launcher, boolean waiting) throws Exception {
        try (TestApiServer server = TestApiServer.start();
                KubernetesClient client = server.client()) {
            prepare(server, count);
            Path kubeconfig = Files.createTempFile("lbk8s-bench", ".kubeconfig");
            server.writeKubeconfig(kubeconfig);
            var watch = new IpWatch();
            var informer = client.services().inNamespace("default").inform(watch);
            var builder = new ProcessBuilder(
                            launcher.toString(),
                            "controller",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "--namespace",
                            "lbk8s-system",
                            "--metrics-port",
                            "0")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().putIfAbsent("JAVA_OPTS", CONTROLLER_JAVA_OPTS);
            watch.expect(count);
            if (waiting) {
                create(client, count);
            }
            Process controller = builder.start();
            try {
                long start = System.nanoTime();
                if (!waiting) {
                    create(client, count);
                }
                if (!watch.latch.await(600, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(
                            "only " + (count - watch.latch.getCount()) + " of " + count + " got an IP");
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long rssKb = ProcessMemory.of(controller
                                .toHandle()
                                .descendants()
                                .filter(p -> p.info().command().orElse("").endsWith("java"))
                                .findFirst()
                                .orElse(controller.toHandle())
                                .pid())
                        .rssKb();
                System.out.printf(
                        waiting
                                ? "| controller | controller started with %d Services waiting -> all with an IP | %.1f s |%n"
                                : "| controller | %d Services created -> all with an IP, total | %.1f s |%n",
                        count,
                        seconds);
                System.out.printf(
                        "| controller | controller RSS with %d Services assigned (own process) | %d MB |%n",
                        count, rssKb / 1024);
            } finally {
                controller.destroy();
                controller.waitFor(10, TimeUnit.SECONDS);
                informer.close();
                Files.deleteIfExists(kubeconfig);
            }
        }
    }

    static void create(KubernetesClient client, int count) throws InterruptedException {
        Thread[] creators = new Thread[4];
        for (int t = 0; t < creators.length; t++) {
            int offset = t;
            creators[t] = Thread.ofVirtual().start(() -> {
                for (int i = offset; i < count; i += creators.length) {
                    client.services()
                            .inNamespace("default")
                            .resource(service("scale-" + i))
                            .create();
                }
            });
        }
        for (Thread creator : creators) {
            creator.join();
        }
    }
}

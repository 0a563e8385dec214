package io.lbk8s.cli;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.text.Durations;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The image build's training run for the AOT cache (dist/src/build/assemble): both roles in one JVM, against a test API
 * server seeded with a pool, a node and a Service, until both answer /readyz, the controller counts the seeded Service
 * as assigned and both have served /metrics; then a BGPPeer on loopback ({@link TrainingRouter}) gets the seeded
 * Service's route, and a Service created then is assigned and advertised to it, before the JVM exits and writes the
 * cache. One JVM, since a cache comes from one run: trained on the controller alone, the speaker's classes and the
 * decoding of real objects stayed out of it; trained without BGP and without a new Service, the first Service after a
 * start went to the router 150-250 ms later than the next ones (bench/run's BgpBenchmark). Hidden: not for users.
 */
@Command(name = "aot-training", hidden = true, description = "Run both roles briefly to train the AOT cache.")
final class AotTrainingCommand implements Callable<Integer> {
    @Option(names = "--kubeconfig", required = true)
    String kubeconfig;

    @Option(names = "--node", required = true, description = "The seeded Node the speaker runs as.")
    String node;

    @Option(
            names = "--within",
            defaultValue = "60s",
            description = "Give up after this long (default: ${DEFAULT-VALUE}).")
    String within;

    @Override
    public Integer call() throws Exception {
        int controllerPort = freePort(), speakerPort = freePort(), peerPort = freePort();
        List<String> common = List.of("--kubeconfig", kubeconfig, "--metrics-address", "127.0.0.1");
        start("controller", common, "--leader-elect=false", "--metrics-port", String.valueOf(controllerPort));
        start(
                "speaker",
                common,
                "--node",
                node,
                "--pod-name",
                "speaker-" + node,
                "--metrics-port",
                String.valueOf(speakerPort),
                "--peer-port",
                String.valueOf(peerPort));
        long deadline = System.nanoTime() + Durations.parse("--within", within).toNanos();
        try (HttpClient http = HttpClient.newHttpClient();
                TrainingRouter router = TrainingRouter.start();
                KubernetesClient client = new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(null, Files.readString(Path.of(kubeconfig)), kubeconfig))
                        .build()) {
            awaitReady(http, speakerPort, deadline);
            awaitReady(http, controllerPort, deadline);
            // the controller has taken the seeded Service's assignment over (and written what it writes) once it
            // counts it; exiting before would leave that path out of the cache
            await(
                    "the controller to count the seeded Service as assigned",
                    deadline,
                    () -> metrics(http, controllerPort).contains("\nlbk8s_services_assigned 1.0"));
            metrics(http, speakerPort);
            createPeer(client, router.port());
            await(
                    "the speaker to advertise the seeded Service over BGP",
                    deadline,
                    () -> router.announced().contains(SEEDED_ROUTE));
            // what a user does next, and the path each role takes for it: a new Service assigned and advertised
            createService(client);
            await(
                    "the controller to assign the new Service",
                    deadline,
                    () -> metrics(http, controllerPort).contains("\nlbk8s_services_assigned 2.0"));
            await(
                    "the speaker to advertise the new Service",
                    deadline,
                    () -> router.announced().size() == 2);
            metrics(http, speakerPort);
        }
        // assemble looks for this line: a training run that gave up halfway still writes a cache, a poorer one
        System.out.println(TRAINED);
        System.exit(0); // the roles' shutdown hooks run, as on SIGTERM, and the JVM writes the cache
        return 0;
    }

    static final String TRAINED = "aot-training: both roles trained, over layer 2 and BGP";
    private static final String NAMESPACE = "lbk8s-system";
    private static final String SEEDED_ROUTE = "198.51.100.200/32";

    /** A BGPPeer for the training router (the seeded BGPAdvertisement announces the seeded pool to every peer). */
    private static void createPeer(KubernetesClient client, int port) {
        GenericKubernetesResource peer = new GenericKubernetesResourceBuilder()
                .withApiVersion("metallb.io/v1beta2")
                .withKind("BGPPeer")
                .withNewMetadata()
                .withName("training")
                .withNamespace(NAMESPACE)
                .endMetadata()
                .addToAdditionalProperties(
                        "spec",
                        Map.of(
                                "myASN",
                                64512,
                                "peerASN",
                                TrainingRouter.ASN,
                                "peerAddress",
                                "127.0.0.1",
                                "peerPort",
                                port))
                .build();
        client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup("metallb.io")
                        .withVersion("v1beta2")
                        .withKind("BGPPeer")
                        .withPlural("bgppeers")
                        .withNamespaced(true)
                        .build())
                .inNamespace(NAMESPACE)
                .resource(peer)
                .create();
    }

    /** A second Service like the seeded one, with its EndpointSlice (the seeded one's backend). */
    private static void createService(KubernetesClient client) {
        client.services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName("web-2")
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withSelector(Map.of("app", "web"))
                        .addNewPort()
                        .withName("http")
                        .withPort(80)
                        .withNewTargetPort(8080)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
        client.discovery()
                .v1()
                .endpointSlices()
                .resource(new EndpointSliceBuilder()
                        .withNewMetadata()
                        .withName("web-2-1")
                        .withNamespace("default")
                        .withLabels(Map.of("kubernetes.io/service-name", "web-2"))
                        .endMetadata()
                        .withAddressType("IPv4")
                        .addNewEndpoint()
                        .withAddresses("10.244.0.5")
                        .withNodeName("node-1")
                        .withNewConditions()
                        .withReady(true)
                        .endConditions()
                        .endEndpoint()
                        .addNewPort()
                        .withName("http")
                        .withPort(8080)
                        .withProtocol("TCP")
                        .endPort()
                        .build())
                .create();
    }

    @FunctionalInterface
    private interface Check {
        boolean holds() throws IOException, InterruptedException;
    }

    private static void await(String what, long deadline, Check check) throws IOException, InterruptedException {
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("training: gave up waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    private static void start(String role, List<String> common, String... more) {
        List<String> args = new ArrayList<>(List.of(role));
        args.addAll(common);
        args.addAll(List.of(more));
        Thread.ofPlatform().daemon().name(role).start(() -> Main.commandLine().execute(args.toArray(String[]::new)));
    }

    private static void awaitReady(HttpClient http, int port, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            try {
                if (http.send(get(port, "/readyz"), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return;
                }
            } catch (IOException notYetListening) {
                // the role has not opened its port yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the role on port " + port + " was not ready in time");
    }

    private static String metrics(HttpClient http, int port) throws IOException, InterruptedException {
        return http.send(get(port, "/metrics"), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static HttpRequest get(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

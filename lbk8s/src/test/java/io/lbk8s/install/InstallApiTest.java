package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lbk8s.cli.CliRun;
import io.lbk8s.controller.Controller;
import io.lbk8s.controller.ControllerSettings;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.testkit.TestApiServer;
import io.lbk8s.testkit.cluster.FreshApiServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** install / re-install / uninstall / verify through the CLI, against the real kube-apiserver. */
class InstallApiTest {
    FreshApiServer server;
    KubernetesClient client;
    Path kubeconfig;

    @BeforeEach
    void start(@TempDir Path dir) {
        server = FreshApiServer.start();
        client = server.client();
        kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
        // a three-node Talos-on-Docker cluster as in the reference design; Talos labels its control plane "exclude"
        for (int i = 2; i <= 4; i++) {
            var labels = i == 2
                    ? Map.of(
                            "node-role.kubernetes.io/control-plane",
                            "",
                            "node.kubernetes.io/exclude-from-external-load-balancers",
                            "")
                    : Map.<String, String>of();
            client.nodes()
                    .resource(new NodeBuilder()
                            .withNewMetadata()
                            .withName("lb-k8s-node-" + i)
                            .withLabels(labels)
                            .endMetadata()
                            .withNewStatus()
                            .addNewAddress()
                            .withType("InternalIP")
                            .withAddress("10.5.0." + i)
                            .endAddress()
                            .withNewNodeInfo()
                            .withOsImage("Talos (v1.14.5)")
                            .endNodeInfo()
                            .endStatus()
                            .build())
                    .create();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    CliRun lbk8s(String... args) {
        return CliRun.of(kubeconfig, args);
    }

    @Test
    void installCreatesEverythingAndASecondRunChangesNothing() {
        CliRun first = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out())
                .contains("cluster: Talos, 3 node(s); addresses 10.5.0.200-10.5.0.250 (chosen in 10.5.0.0/24")
                .contains(
                        "namespace/lbk8s-system created",
                        "deployment.apps/lbk8s-controller created",
                        "daemonset.apps/lbk8s-speaker created",
                        "ipaddresspool.metallb.io/default created");
        for (var object : Manifests.render(InstallValues.defaults())) {
            assertThat(Applier.resource(client, object).get())
                    .as(object.getKind() + " " + object.getMetadata().getName())
                    .isNotNull();
        }
        var pool = client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace("lbk8s-system")
                .withName("default")
                .get();
        assertThat(Installer.addressesOf(pool)).containsExactly("10.5.0.200-10.5.0.250");
        // the speakers' key Secret: made by install (it is in no manifest), one random key of 64 hex characters
        assertThat(first.out()).contains("namespace/lbk8s-system created\nsecret/lbk8s-speaker-peers created\n");
        String key = peerKeys();
        assertThat(key).matches("[0-9a-f]{64}\n");
        var secret = client.secrets()
                .inNamespace("lbk8s-system")
                .withName(Manifests.PEER_SECRET)
                .get();
        assertThat(secret.getType()).isEqualTo("Opaque");
        assertThat(secret.getMetadata().getLabels()).containsEntry(Manifests.MANAGED_BY_LABEL, Manifests.MANAGED_BY);

        int before = server.requests().size();
        CliRun second = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(second.code()).as(second.err()).isZero();
        assertThat(second.out())
                .contains("nothing changed")
                .doesNotContain(" created")
                .doesNotContain(" configured")
                .contains("secret/lbk8s-speaker-peers kept (it holds the speakers' keys, which install never replaces)")
                .doesNotContain("kept as they are");
        assertThat(peerKeys()).as("a re-run keeps the key").isEqualTo(key);
        assertThat(server.requests().stream().skip(before))
                .extracting(r -> r.verb())
                .doesNotContain("create", "update", "patch");

        // a changed flag changes just what it governs
        CliRun third = lbk8s("install", "--wait=false", "--ignore-exclude-lb", "--docker-socket", "/nonexistent");
        assertThat(third.out())
                .contains("daemonset.apps/lbk8s-speaker configured", "deployment.apps/lbk8s-controller unchanged");
        assertThat(client.apps()
                        .daemonSets()
                        .inNamespace("lbk8s-system")
                        .withName("lbk8s-speaker")
                        .get()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getArgs())
                .contains("--ignore-exclude-lb");
    }

    /** An IPAddressClaim as the controller makes one: named after its address, cluster-scoped. */
    void claim(String address) {
        client.genericKubernetesResources(IpAddressClaims.CONTEXT)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("lbk8s.io/v1alpha1")
                        .withKind("IPAddressClaim")
                        .withNewMetadata()
                        .withName(address)
                        .endMetadata()
                        .addToAdditionalProperties(
                                "spec",
                                Map.of(
                                        "address",
                                        address,
                                        "pool",
                                        "default",
                                        "services",
                                        List.of(Map.of(
                                                "namespace",
                                                "default",
                                                "name",
                                                "web-" + address,
                                                "uid",
                                                "uid-" + address))))
                        .build())
                .create();
    }

    List<GenericKubernetesResource> claims() {
        return client.genericKubernetesResources(IpAddressClaims.CONTEXT).list().getItems();
    }

    /** The speakers' key Secret's {@code keys}, decoded. */
    String peerKeys() {
        var secret = client.secrets()
                .inNamespace("lbk8s-system")
                .withName(Manifests.PEER_SECRET)
                .get();
        return new String(
                java.util.Base64.getDecoder().decode(secret.getData().get(Manifests.PEER_KEYS)),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void uninstallLeavesNothingBehind() {
        assertThat(lbk8s("install", "--wait=false", "--addresses", "10.5.0.240-10.5.0.250")
                        .code())
                .isZero();
        claim("10.5.0.240");
        claim("10.5.0.241");
        CliRun un = lbk8s("uninstall");
        assertThat(un.code()).as(un.err()).isZero();
        assertThat(un.out())
                .contains(
                        "deployment.apps/lbk8s-controller deleted",
                        "namespace/lbk8s-system deleted",
                        "customresourcedefinition.apiextensions.k8s.io/ipaddresspools.metallb.io deleted",
                        "poddisruptionbudget.policy/lbk8s-controller deleted");
        // the claims after the controllers (which would claim again), then their CRD
        assertThat(un.out())
                .containsSubsequence(
                        "deployment.apps/lbk8s-controller deleted",
                        "2 ipaddressclaims.lbk8s.io deleted",
                        "customresourcedefinition.apiextensions.k8s.io/ipaddressclaims.lbk8s.io deleted");
        // the key Secret goes after the speakers (which could otherwise make a new one) and before the namespace
        assertThat(un.out())
                .containsSubsequence(
                        "daemonset.apps/lbk8s-speaker deleted",
                        "secret/lbk8s-speaker-peers deleted",
                        "namespace/lbk8s-system deleted");
        assertThat(client.secrets()
                        .inNamespace("lbk8s-system")
                        .withName(Manifests.PEER_SECRET)
                        .get())
                .isNull();
        for (var object : Manifests.render(InstallValues.defaults())) {
            assertThat(Applier.resource(client, object).get())
                    .as(object.getKind() + " " + object.getMetadata().getName())
                    .isNull();
        }
        assertThat(client.rbac()
                        .clusterRoles()
                        .withLabel(Manifests.MANAGED_BY_LABEL, Manifests.MANAGED_BY)
                        .list()
                        .getItems())
                .isEmpty();
        assertThat(lbk8s("uninstall").out()).contains("nothing to delete");
    }

    @Test
    void uninstallKeepsTheUsersPoolsUnlessPurge() {
        assertThat(lbk8s("install", "--wait=false", "--addresses", "10.5.0.240-10.5.0.250")
                        .code())
                .isZero();
        client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace("lbk8s-system")
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("IPAddressPool")
                        .withNewMetadata()
                        .withName("mine")
                        .withNamespace("lbk8s-system")
                        .endMetadata()
                        .addToAdditionalProperties("spec", Map.of("addresses", List.of("10.5.0.100-10.5.0.110")))
                        .build())
                .create();
        CliRun un = lbk8s("uninstall");
        assertThat(un.code()).as(un.err()).isZero();
        assertThat(un.out())
                .contains("ipaddresspool.metallb.io/default deleted", "daemonset.apps/lbk8s-speaker deleted")
                .contains("namespace/lbk8s-system kept")
                .contains("ipaddresspools.metallb.io kept");
        // the claims' CRD holds nothing of the user's: it goes though the pools' CRDs stay
        assertThat(un.out()).contains("customresourcedefinition.apiextensions.k8s.io/ipaddressclaims.lbk8s.io deleted");
        assertThat(client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName(IpAddressClaims.CRD)
                        .get())
                .isNull();
        var pools = client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace("lbk8s-system");
        assertThat(pools.list().getItems())
                .extracting(p -> p.getMetadata().getName())
                .containsExactly("mine");
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("lbk8s-system")
                        .list()
                        .getItems())
                .isEmpty();

        // the namespace stays for the user's pool, but install's key Secret goes with the rest of install's objects
        assertThat(un.out()).contains("secret/lbk8s-speaker-peers deleted");
        assertThat(client.secrets()
                        .inNamespace("lbk8s-system")
                        .withName(Manifests.PEER_SECRET)
                        .get())
                .isNull();

        CliRun purge = lbk8s("uninstall", "--purge");
        assertThat(purge.out())
                .contains("ipaddresspool.metallb.io/mine deleted (--purge)", "namespace/lbk8s-system deleted");
        assertThat(client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .list()
                        .getItems())
                .isEmpty();
    }

    @Test
    void aKeySecretInstallDidNotMakeIsKeptAsItIs() {
        // made before install by someone else (a speaker from kubectl apply that labelled it otherwise, or the user)
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("lbk8s-system")
                        .endMetadata()
                        .build())
                .create();
        String theirs = "0123456789abcdef0123456789abcdef-first\n0123456789abcdef0123456789abcdef-second\n";
        var secret = Manifests.peerSecret("lbk8s-system", theirs);
        secret.getMetadata().setLabels(Map.of());
        client.secrets().inNamespace("lbk8s-system").resource(secret).create();
        CliRun install = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(install.code()).as(install.err()).isZero();
        assertThat(install.out()).contains("secret/lbk8s-speaker-peers kept (not made by lbk8s install)");
        assertThat(peerKeys()).isEqualTo(theirs);
        CliRun un = lbk8s("uninstall");
        assertThat(un.out()).contains("secret/lbk8s-speaker-peers kept (not made by lbk8s install)");
        assertThat(peerKeys()).isEqualTo(theirs);
    }

    @Test
    void installWarnsWhenNoNodeMayAnnounce() {
        client.nodes()
                .list()
                .getItems()
                .forEach(n -> client.nodes()
                        .withName(n.getMetadata().getName())
                        .edit(x -> new NodeBuilder(x)
                                .editMetadata()
                                .addToLabels(NodeFacts.EXCLUDE_LB_LABEL, "")
                                .endMetadata()
                                .build()));
        CliRun run = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(run.err())
                .contains(
                        "warning: every node carries the label node.kubernetes.io/exclude-from-external-load-balancers")
                .contains("--ignore-exclude-lb");
        assertThat(lbk8s("install", "--wait=false", "--ignore-exclude-lb").err())
                .doesNotContain("warning: every node");
    }

    @Test
    void badInputIsOneSentenceAndANonZeroExit() throws Exception {
        CliRun overlap = lbk8s("install", "--wait=false", "--addresses", "10.5.0.300-10.5.0.310");
        assertThat(overlap.code()).isEqualTo(1);
        assertThat(overlap.err())
                .startsWith("error: the pool 10.5.0.300-10.5.0.310 would be rejected")
                .doesNotContain("Exception")
                .hasLineCount(1);
        assertThat(lbk8s("install", "--timeout", "soon").err())
                .isEqualTo(
                        "error: --timeout: \"soon\" is not a duration like 90s, 3m or 500ms (see lbk8s install --help)\n");
        CliRun port = lbk8s("install", "--peer-port", "65536");
        assertThat(port.code()).as("a bad flag").isEqualTo(2);
        assertThat(port.err())
                .isEqualTo(
                        "error: --peer-port: 65536 is outside 1-65535 (0 turns the failure detector off) (see lbk8s install --help)\n");
        assertThat(lbk8s("install", "--peer-port", "-1", "--dry-run").err())
                .startsWith("error: --peer-port: -1 is outside");
        CliRun listen = lbk8s("install", "--bgp-listen-port", "65536", "--dry-run");
        assertThat(listen.code()).as("a bad flag").isEqualTo(2);
        assertThat(listen.err())
                .isEqualTo("error: --bgp-listen-port: 65536 is outside 1-65535 (0: the speakers only connect out) (see"
                        + " lbk8s install --help)\n");
        CliRun replicas = lbk8s("install", "--controller-replicas", "0", "--dry-run");
        assertThat(replicas.code()).isEqualTo(2);
        assertThat(replicas.err())
                .isEqualTo(
                        "error: --controller-replicas: 0 is below 1 (without a controller no Service gets an address)"
                                + " (see lbk8s install --help)\n");
        Path nowhere;
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            nowhere = TestApiServer.writeKubeconfig(
                    kubeconfig.resolveSibling("nowhere"), "https://127.0.0.1:" + socket.getLocalPort());
        }
        CliRun noApi = CliRun.of(nowhere, "status");
        assertThat(noApi.code()).isEqualTo(1);
        assertThat(noApi.err())
                .startsWith("error: the API server refused or did not answer")
                .hasLineCount(1);
    }

    @Test
    void installWaitsForTheRolloutAndVerifies() throws Exception {
        // nothing runs Pods here: a "kubelet" marks the workloads ready, and an in-process controller assigns addresses
        Thread kubelet = Thread.ofVirtual().start(() -> {
            var deployments = client.apps().deployments().inNamespace("lbk8s-system");
            var daemonSets = client.apps().daemonSets().inNamespace("lbk8s-system");
            try {
                // the pool is the last object install applies: it waits for the rollout from then on
                while (deployments.withName(Manifests.CONTROLLER).get() == null
                        || daemonSets.withName(Manifests.SPEAKER).get() == null
                        || client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                                        .inNamespace("lbk8s-system")
                                        .withName("default")
                                        .get()
                                == null) {
                    Thread.sleep(100);
                }
                Thread.sleep(1500); // long enough to be seen waiting
                var d = deployments.withName(Manifests.CONTROLLER).get();
                d.setStatus(new DeploymentStatusBuilder()
                        .withObservedGeneration(d.getMetadata().getGeneration())
                        .withReplicas(2)
                        .withUpdatedReplicas(2)
                        .withAvailableReplicas(2)
                        .withReadyReplicas(2)
                        .build());
                deployments.resource(d).updateStatus();
                var ds = daemonSets.withName(Manifests.SPEAKER).get();
                ds.setStatus(new DaemonSetStatusBuilder()
                        .withObservedGeneration(ds.getMetadata().getGeneration())
                        .withDesiredNumberScheduled(3)
                        .withCurrentNumberScheduled(3)
                        .withNumberReady(3)
                        .withUpdatedNumberScheduled(3)
                        .withNumberMisscheduled(0)
                        .build());
                daemonSets.resource(ds).updateStatus();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Controller controller = null;
        try {
            // the controller needs the CRDs, which install creates: start it once they exist
            Thread.ofVirtual().start(() -> {}).join();
            CliRun install;
            var holder = new Controller[1];
            Thread starter = Thread.ofVirtual().start(() -> {
                try {
                    while (client.apiextensions()
                                    .v1()
                                    .customResourceDefinitions()
                                    .withName("l2advertisements.metallb.io")
                                    .get()
                            == null) {
                        Thread.sleep(100);
                    }
                    holder[0] = new Controller(
                            server.newClient(),
                            new ControllerSettings("lbk8s-system", Optional.empty()),
                            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
                    holder[0].start();
                    holder[0].lead();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            install = lbk8s(
                    "install",
                    "--verify",
                    "--timeout",
                    "30s",
                    "--verify-timeout",
                    "20s",
                    "--docker-socket",
                    "/nonexistent");
            starter.join();
            controller = holder[0];
            assertThat(install.code()).as(install.out() + install.err()).isZero();
            assertThat(install.out())
                    .contains(
                            "waiting: deployment/lbk8s-controller: 0 of 2 available",
                            "waiting: daemonset/lbk8s-speaker: 3 of 3 nodes ready",
                            "lbk8s is running",
                            "verify: service got [10.5.0.200]",
                            "verify: deleted the test service");
            // the speakers announce only a Service with a ready endpoint: the test Service gets one, a node's closed
            // port
            assertThat(install.out()).containsPattern("verify: gave it an endpoint, 10\\.5\\.0\\.[234]:1 on node ");
            assertThat(client.discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace("lbk8s-system")
                            .list()
                            .getItems())
                    .isEmpty();
            // 10.5.0.200 is not on this machine's network: the default TCP check finds no answer, and says so
            assertThat(install.out() + install.err())
                    .containsAnyOf("verify: ok", "warning: verify: 10.5.0.200 was assigned but did not answer");
            assertThat(client.services()
                            .inNamespace("lbk8s-system")
                            .withName(Verifier.SERVICE_NAME)
                            .get())
                    .isNull();
        } finally {
            kubelet.interrupt();
            if (controller != null) {
                controller.close();
            }
        }
    }

    @Test
    void verifierReportsReachabilityThroughThePluggableCheck() throws Exception {
        assertThat(lbk8s("install", "--wait=false", "--addresses", "10.5.0.240-10.5.0.250")
                        .code())
                .isZero();
        var controller = new Controller(
                server.newClient(),
                new ControllerSettings("lbk8s-system", Optional.empty()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        controller.start();
        controller.lead();
        try {
            List<String> said = new java.util.ArrayList<>();
            Reachability answers = (ip, port) -> new Reachability.Verdict.Answered("fake: " + ip + ":" + port);
            var outcome = new Verifier(client, answers)
                    .verify(
                            "lbk8s-system",
                            Optional.empty(),
                            Duration.ofSeconds(20),
                            d -> Thread.sleep(d.toMillis()),
                            said::add);
            assertThat(outcome)
                    .isEqualTo(new Verifier.Outcome.Verified(
                            List.of(io.lbk8s.address.IpAddress.parse("10.5.0.240")
                                    .orElseThrow()),
                            new Reachability.Verdict.Answered("fake: 10.5.0.240:80")));
            assertThat(client.services()
                            .inNamespace("lbk8s-system")
                            .withName(Verifier.SERVICE_NAME)
                            .get())
                    .isNull();
        } finally {
            controller.close();
        }
        // without a controller, no address: a clear failure, and the Service is still cleaned up
        var none = new Verifier(client, (ip, port) -> null)
                .verify(
                        "lbk8s-system",
                        Optional.empty(),
                        Duration.ofMillis(600),
                        d -> Thread.sleep(d.toMillis()),
                        s -> {});
        assertThat(none).isInstanceOf(Verifier.Outcome.NoAddress.class);
        assertThat(client.services()
                        .inNamespace("lbk8s-system")
                        .withName(Verifier.SERVICE_NAME)
                        .get())
                .isNull();
    }

    // ---- bugs from the docs review ----

    GenericKubernetesResource usersPool(String name, String... addresses) {
        return client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace("lbk8s-system")
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("metallb.io/v1beta1")
                        .withKind("IPAddressPool")
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("lbk8s-system")
                        .endMetadata()
                        .addToAdditionalProperties("spec", Map.of("addresses", List.of(addresses)))
                        .build())
                .create();
    }

    void usersNamespaceAndCrds() throws Exception {
        server.createCrds(Path.of("..", "deploy", "crds")); // like MetalLB's: no managed-by label
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName("lbk8s-system")
                        .endMetadata()
                        .build())
                .create();
    }

    @Test
    void serverDryRunPrintsTheManifestsForTheClusterInTheAskedFormat() throws Exception {
        CliRun json = lbk8s("install", "--dry-run=server", "-o", "json", "--docker-socket", "/nonexistent");
        assertThat(json.code()).as(json.err()).isZero();
        assertThat(json.err()).contains("addresses 10.5.0.200-10.5.0.250 (chosen in 10.5.0.0/24");
        assertThat(json.out()).startsWith("{").contains("\"kind\" : \"List\"", "\"10.5.0.200-10.5.0.250\"");
        CliRun yaml = lbk8s("install", "--dry-run=server", "--output", "yaml", "--docker-socket", "/nonexistent");
        assertThat(yaml.code()).as(yaml.err()).isZero();
        assertThat(yaml.out()).startsWith("---\n").contains("kind: IPAddressPool", "- 10.5.0.200-10.5.0.250");
        assertThat(client.namespaces().withName("lbk8s-system").get())
                .as("a dry run writes nothing")
                .isNull();
        // no key in any dry run: install makes the key Secret only when it applies
        assertThat(json.out()).doesNotContain("\"Secret\"");
        assertThat(yaml.out()).doesNotContain("kind: Secret");
        CliRun offline = lbk8s("install", "--dry-run", "-o", "yaml");
        assertThat(offline.code()).as(offline.err()).isZero();
        assertThat(offline.out()).contains("kind: DaemonSet").doesNotContain("kind: Secret");
        assertThat(ManifestOutput.SERIALIZATION.<List<io.fabric8.kubernetes.api.model.HasMetadata>>unmarshal(
                        offline.out()))
                .noneMatch(o -> o instanceof io.fabric8.kubernetes.api.model.Secret);
        // -o without any --dry-run is still refused
        assertThat(lbk8s("install", "-o", "yaml").err())
                .isEqualTo("error: -o/--output prints manifests and needs --dry-run (see lbk8s install --help)\n");
    }

    @Test
    void installKeepsCrdsAndNamespaceItDidNotMakeAndPurgeLeavesThem() throws Exception {
        usersNamespaceAndCrds();
        usersPool("metallb-pool", "10.5.0.100-10.5.0.110");
        CliRun install = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(install.code()).as(install.err()).isZero();
        assertThat(install.out())
                .contains(
                        "customresourcedefinition.apiextensions.k8s.io/ipaddresspools.metallb.io kept (not made by lbk8s install)",
                        "namespace/lbk8s-system kept (not made by lbk8s install",
                        "ipaddresspool.metallb.io/default created")
                .doesNotContain("customresourcedefinition.apiextensions.k8s.io/ipaddresspools.metallb.io configured");
        for (var crd :
                client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
            assertThat(crd.getMetadata().getLabels())
                    .as(crd.getMetadata().getName())
                    .doesNotContainKey(Manifests.MANAGED_BY_LABEL);
        }
        var ns = client.namespaces().withName("lbk8s-system").get();
        assertThat(ns.getMetadata().getLabels())
                .doesNotContainKey(Manifests.MANAGED_BY_LABEL)
                .containsEntry(
                        "pod-security.kubernetes.io/enforce", "privileged"); // what the speaker needs, nothing more
        assertThat(lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent")
                        .out())
                .contains("nothing changed");
        claim("10.5.0.200");

        CliRun purge = lbk8s("uninstall", "--purge");
        assertThat(purge.code()).as(purge.err()).isZero();
        // the controllers' claims go even under a CRD install did not make, which stays
        assertThat(purge.out())
                .contains(
                        "1 ipaddressclaims.lbk8s.io deleted",
                        "customresourcedefinition.apiextensions.k8s.io/ipaddressclaims.lbk8s.io kept (not made by lbk8s install)");
        assertThat(claims()).isEmpty();
        assertThat(purge.out())
                .contains("ipaddresspool.metallb.io/default deleted", "deployment.apps/lbk8s-controller deleted")
                .doesNotContain("metallb-pool deleted")
                .doesNotContain("ipaddresspools.metallb.io deleted")
                .doesNotContain("namespace/lbk8s-system deleted");
        assertThat(client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .list()
                        .getItems())
                .hasSize(Crds.FILES.size());
        assertThat(client.namespaces().withName("lbk8s-system").get()).isNotNull();
        assertThat(client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                        .inNamespace("lbk8s-system")
                        .list()
                        .getItems())
                .extracting(p -> p.getMetadata().getName())
                .containsExactly("metallb-pool");
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("lbk8s-system")
                        .list()
                        .getItems())
                .isEmpty();
    }

    @Test
    void aPoolOfThePoolNameThatInstallDidNotMakeIsKeptAndUsed() throws Exception {
        usersNamespaceAndCrds();
        usersPool("default", "10.5.0.100-10.5.0.110");
        CliRun install = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(install.code()).as(install.err()).isZero();
        assertThat(install.out() + install.err())
                .contains(
                        "addresses 10.5.0.100-10.5.0.110 (",
                        "ipaddresspool default exists and was not made by lbk8s install: kept; "
                                + "its addresses are used as they are")
                .doesNotContain("already defined");
        var pools = client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace("lbk8s-system");
        assertThat(pools.withName("default").get().getMetadata().getLabels()).isNullOrEmpty();
        assertThat(Installer.addressesOf(pools.withName("default").get())).containsExactly("10.5.0.100-10.5.0.110");
        assertThat(client.genericKubernetesResources(ConfigResources.L2_ADVERTISEMENTS)
                        .inNamespace("lbk8s-system")
                        .list()
                        .getItems())
                .as("no L2Advertisement of ours for the user's pool")
                .isEmpty();
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("lbk8s-system")
                        .withName(Manifests.CONTROLLER)
                        .get())
                .isNotNull();

        // --addresses does not override the user's pool either, and says so
        CliRun withAddresses = lbk8s("install", "--wait=false", "--addresses", "10.5.0.240-10.5.0.250");
        assertThat(withAddresses.code()).as(withAddresses.err()).isZero();
        assertThat(withAddresses.out() + withAddresses.err())
                .contains("--addresses is not applied to it", "--pool-name");
        assertThat(Installer.addressesOf(pools.withName("default").get())).containsExactly("10.5.0.100-10.5.0.110");

        assertThat(lbk8s("uninstall", "--purge").code()).isZero();
        assertThat(pools.withName("default").get())
                .as("uninstall --purge leaves the user's pool")
                .isNotNull();
    }

    @Test
    void overlappingAddressesNameAddressesAndAClashingNameNamesPoolName() throws Exception {
        usersNamespaceAndCrds();
        usersPool("mine", "10.5.0.240-10.5.0.250");
        CliRun overlap = lbk8s("install", "--wait=false", "--addresses", "10.5.0.245-10.5.0.249");
        assertThat(overlap.code()).isEqualTo(1);
        assertThat(overlap.err())
                .startsWith("error: the pool 10.5.0.245-10.5.0.249 would be rejected")
                .contains("overlaps")
                .contains("pass other --addresses")
                .doesNotContain("--pool-name")
                .hasLineCount(1);
        // a legacy ConfigMap pool of the same name: the name is the problem, and --pool-name the fix
        client.configMaps()
                .inNamespace("lbk8s-system")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ConfigResources.CONFIG_MAP_NAME)
                        .endMetadata()
                        .addToData(
                                ConfigResources.CONFIG_MAP_KEY,
                                "pools:\n- name: default\n  addresses: [10.5.0.100-10.5.0.110]\n")
                        .build())
                .create();
        CliRun clash = lbk8s("install", "--wait=false", "--addresses", "10.5.0.200-10.5.0.210");
        assertThat(clash.code()).isEqualTo(1);
        assertThat(clash.err())
                .contains("already defined")
                .contains("pass another --pool-name")
                .doesNotContain("choose other --addresses")
                .hasLineCount(1);
    }

    @Test
    void installWarnsWhenTheKeptPoolLiesOutsideTheNodeNetwork() throws Exception {
        // kind: nodes on 172.18.0.0/16, and deploy/lbk8s.yaml applied as it is (the example pool 10.5.0.200-10.5.0.250)
        client.nodes().delete();
        for (int i = 2; i <= 3; i++) {
            client.nodes()
                    .resource(new NodeBuilder()
                            .withNewMetadata()
                            .withName("kind-node-" + i)
                            .endMetadata()
                            .withNewSpec()
                            .withProviderID("kind://docker/kind/kind-node-" + i)
                            .endSpec()
                            .withNewStatus()
                            .addNewAddress()
                            .withType("InternalIP")
                            .withAddress("172.18.0." + i)
                            .endAddress()
                            .withNewNodeInfo()
                            .withOsImage("Debian GNU/Linux 12 (bookworm)")
                            .endNodeInfo()
                            .endStatus()
                            .build())
                    .create();
        }
        server.createCrds(Path.of("..", "deploy", "crds"));
        for (var object : Manifests.render(InstallValues.defaults())) {
            if (!(object instanceof io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition)) {
                Applier.resource(client, object).create();
            }
        }
        CliRun install = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(install.code()).as(install.err()).isZero();
        assertThat(install.out())
                .contains("addresses 10.5.0.200-10.5.0.250 (kept from the existing IPAddressPool default)");
        assertThat(install.err())
                .contains("warning: the IPAddressPool default keeps 10.5.0.200-10.5.0.250, outside the node network "
                        + "172.18.0.0/24 (a /24 around the nodes' InternalIPs): no node can answer for those addresses, so Services get an "
                        + "address nobody reaches; run lbk8s install --addresses 172.18.0.200-172.18.0.250 to move the pool into the node "
                        + "network\n");
        // once moved, no warning
        assertThat(lbk8s(
                                "install",
                                "--wait=false",
                                "--addresses",
                                "172.18.0.200-172.18.0.250",
                                "--docker-socket",
                                "/nonexistent")
                        .code())
                .isZero();
        assertThat(lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent")
                        .err())
                .doesNotContain("outside");
    }

    @Test
    void controllerReplicasAreTwoUnlessAsked() {
        var deployments = client.apps().deployments().inNamespace("lbk8s-system");
        assertThat(lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent")
                        .code())
                .isZero();
        assertThat(deployments.withName(Manifests.CONTROLLER).get().getSpec().getReplicas())
                .isEqualTo(2);
        CliRun one = lbk8s("install", "--wait=false", "--controller-replicas", "1", "--docker-socket", "/nonexistent");
        assertThat(one.code()).as(one.err()).isZero();
        assertThat(one.out())
                .contains(
                        "deployment.apps/lbk8s-controller configured",
                        "poddisruptionbudget.policy/lbk8s-controller unchanged");
        assertThat(deployments.withName(Manifests.CONTROLLER).get().getSpec().getReplicas())
                .isEqualTo(1);
        CliRun dryRun = lbk8s("install", "--dry-run", "--controller-replicas", "3");
        assertThat(dryRun.out()).contains("kind: Deployment").contains("  replicas: 3\n");
    }

    @Test
    void aReRunWithoutAFlagGivenBeforeTakesItsDefault() {
        // what the help and docs promise: the same flags change nothing; a flag left out takes its default
        assertThat(lbk8s(
                                "install",
                                "--wait=false",
                                "--image",
                                "10.5.0.10:5000/lbk8s:dev",
                                "--docker-socket",
                                "/nonexistent")
                        .code())
                .isZero();
        CliRun again = lbk8s("install", "--wait=false", "--docker-socket", "/nonexistent");
        assertThat(again.out())
                .contains(
                        "deployment.apps/lbk8s-controller configured",
                        "daemonset.apps/lbk8s-speaker configured",
                        "addresses 10.5.0.200-10.5.0.250 (kept from the existing IPAddressPool default)");
        assertThat(client.apps()
                        .deployments()
                        .inNamespace("lbk8s-system")
                        .withName(Manifests.CONTROLLER)
                        .get()
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getImage())
                .isEqualTo(InstallValues.defaults().image());
    }

    @Test
    @SuppressWarnings("unchecked")
    void bgpPeersGivenToInstallAreCreatedKeptOnARerunAndUninstalled() {
        String[] install = {
            "install",
            "--wait=false",
            "--addresses",
            "10.5.0.240-10.5.0.250",
            "--bgp-peer",
            "10.5.0.1,asn=64501,name=tor"
        };
        CliRun first = lbk8s(install);
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out())
                .contains("bgppeer.metallb.io/tor created", "bgpadvertisement.metallb.io/default created");
        var peer = client.genericKubernetesResources(ConfigResources.BGP_PEERS)
                .inNamespace("lbk8s-system")
                .withName("tor")
                .get();
        assertThat((Map<String, Object>) peer.getAdditionalProperties().get("spec"))
                .containsEntry("myASN", 64512)
                .containsEntry("peerASN", 64501)
                .containsEntry("peerAddress", "10.5.0.1");
        assertThat((Map<String, Object>) client.genericKubernetesResources(ConfigResources.BGP_ADVERTISEMENTS)
                        .inNamespace("lbk8s-system")
                        .withName("default")
                        .get()
                        .getAdditionalProperties()
                        .get("spec"))
                .containsEntry("ipAddressPools", List.of("default"));

        CliRun again = lbk8s(install);
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.out())
                .contains("bgppeer.metallb.io/tor unchanged", "bgpadvertisement.metallb.io/default unchanged");

        CliRun un = lbk8s("uninstall");
        assertThat(un.code()).as(un.err()).isZero();
        assertThat(un.out()).contains("bgppeer.metallb.io/tor deleted", "bgpadvertisement.metallb.io/default deleted");
    }

    @Test
    void rolloutProgressIsBoundedAndSaysWhatItWaitsFor() throws Exception {
        List<String> said = new java.util.ArrayList<>();
        var waiting = new Rollout.Progress("deployment/x", false, "0 of 1 available");
        var last =
                Rollout.await(() -> List.of(waiting), Duration.ofSeconds(3), Duration.ofSeconds(1), d -> {}, said::add);
        assertThat(last).containsExactly(waiting);
        assertThat(said).containsExactly("waiting: deployment/x: 0 of 1 available"); // printed once, not on every poll
    }
}

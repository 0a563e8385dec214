package io.lbk8s.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lbk8s status} and {@code lbk8s migrate} through the CLI against the real kube-apiserver, with MetalLB's
 * configuration where lbk8s does not read it: a pool and an L2Advertisement in metallb-system and the legacy ConfigMap.
 */
class MigrateApiTest {
    static final String NS = InstallValues.DEFAULT_NAMESPACE;
    static final String METALLB = "metallb-system";
    static final String LEGACY =
            "address-pools:\n- name: legacy\n  protocol: layer2\n  addresses: [192.168.1.240-192.168.1.250]\n"
                    + "  auto-assign: false\n";

    FreshApiServer server;
    KubernetesClient client;
    Path kubeconfig;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        server = FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds"));
        client = server.client();
        kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
        for (String ns : List.of(NS, METALLB)) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build())
                    .create();
        }
        Map<String, Object> spec = new LinkedHashMap<>(); // in this order, as the dry run prints it
        spec.put("addresses", List.of("10.5.0.200-10.5.0.220"));
        spec.put("autoAssign", true);
        create(ConfigResources.IP_ADDRESS_POOLS, "IPAddressPool", METALLB, "default", spec);
        create(
                ConfigResources.L2_ADVERTISEMENTS,
                "L2Advertisement",
                METALLB,
                "l2",
                Map.of("ipAddressPools", List.of("default")));
        client.configMaps()
                .inNamespace(METALLB)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("config")
                        .withNamespace(METALLB)
                        .endMetadata()
                        .withData(Map.of("config", LEGACY))
                        .build())
                .create();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    void create(
            ResourceDefinitionContext context, String kind, String namespace, String name, Map<String, Object> spec) {
        client.genericKubernetesResources(context)
                .inNamespace(namespace)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion(context.getGroup() + "/" + context.getVersion())
                        .withKind(kind)
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build())
                .create();
    }

    List<String> names(ResourceDefinitionContext context, String namespace) {
        return client.genericKubernetesResources(context).inNamespace(namespace).list().getItems().stream()
                .map(r -> r.getMetadata().getName())
                .sorted()
                .toList();
    }

    CliRun lbk8s(String... args) {
        return CliRun.of(kubeconfig, args);
    }

    @Test
    void statusSaysWhatIsWhereLbk8sDoesNotRead() {
        CliRun status = lbk8s("status");

        assertThat(status.code()).isZero();
        assertThat(status.out())
                .startsWith("No address pools.\nconfiguration not read: found 1 IPAddressPool and "
                        + "1 L2Advertisement in metallb-system and MetalLB's legacy ConfigMap metallb-system/config, which lbk8s does "
                        + "not read: run \"lbk8s migrate -n lbk8s-system --dry-run\"\n");
    }

    @Test
    void dryRunPrintsTheObjectsAndChangesNothing() {
        CliRun dry = lbk8s("migrate", "--dry-run");

        assertThat(dry.code()).as(dry.err()).isZero();
        assertThat(dry.out()).isEqualTo("""
                ---
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata:
                  name: default
                  namespace: lbk8s-system
                spec:
                  addresses:
                  - 10.5.0.200-10.5.0.220
                  autoAssign: true
                  avoidBuggyIPs: false
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata:
                  name: l2
                  namespace: lbk8s-system
                spec:
                  ipAddressPools:
                  - default
                ---
                apiVersion: metallb.io/v1beta1
                kind: IPAddressPool
                metadata:
                  name: legacy
                  namespace: lbk8s-system
                spec:
                  addresses:
                  - 192.168.1.240-192.168.1.250
                  autoAssign: false
                ---
                apiVersion: metallb.io/v1beta1
                kind: L2Advertisement
                metadata:
                  name: legacy
                  namespace: lbk8s-system
                spec:
                  ipAddressPools:
                  - legacy
                """);
        assertThat(dry.err()).isEqualTo("dry run: 4 object(s) would be created in lbk8s-system; nothing changed\n");
        assertThat(names(ConfigResources.IP_ADDRESS_POOLS, NS)).isEmpty();
        assertThat(names(ConfigResources.L2_ADVERTISEMENTS, NS)).isEmpty();
    }

    @Test
    void migrateCreatesTheObjectsKeepsTheOriginalsAndIsIdempotent() {
        CliRun run = lbk8s("migrate");

        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("""
                ipaddresspool.metallb.io/default created in lbk8s-system (from IPAddressPool metallb-system/default)
                l2advertisement.metallb.io/l2 created in lbk8s-system (from L2Advertisement metallb-system/l2)
                ipaddresspool.metallb.io/legacy created in lbk8s-system (from ConfigMap metallb-system/config)
                l2advertisement.metallb.io/legacy created in lbk8s-system (from ConfigMap metallb-system/config)
                The originals are kept. Once lbk8s status shows every Service with its address, delete them:
                  kubectl delete configmap -n metallb-system config
                  kubectl delete ipaddresspools.metallb.io -n metallb-system default
                  kubectl delete l2advertisements.metallb.io -n metallb-system l2
                """);
        assertThat(names(ConfigResources.IP_ADDRESS_POOLS, NS)).containsExactly("default", "legacy");
        assertThat(names(ConfigResources.L2_ADVERTISEMENTS, NS)).containsExactly("l2", "legacy");
        GenericKubernetesResource legacy = client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS)
                .inNamespace(NS)
                .withName("legacy")
                .get();
        // as stored: the API server fills in the CRD's default for avoidBuggyIPs
        assertThat(legacy.getAdditionalProperties().get("spec"))
                .isEqualTo(Map.of(
                        "addresses",
                        List.of("192.168.1.240-192.168.1.250"),
                        "autoAssign",
                        false,
                        "avoidBuggyIPs",
                        false));
        assertThat(names(ConfigResources.IP_ADDRESS_POOLS, METALLB)).containsExactly("default");
        assertThat(client.configMaps().inNamespace(METALLB).withName("config").get())
                .isNotNull();
        assertThat(lbk8s("status").out()).contains("legacy    192.168.1.240-192.168.1.250");

        CliRun again = lbk8s("migrate");
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.err())
                .contains("IPAddressPool default already in lbk8s-system with the same spec "
                        + "(from IPAddressPool metallb-system/default)");
        assertThat(again.out()).doesNotContain("created");
    }

    @Test
    void aNameTakenByAnotherSpecIsRefusedAndNothingIsCreated() {
        create(
                ConfigResources.IP_ADDRESS_POOLS,
                "IPAddressPool",
                NS,
                "default",
                Map.of("addresses", List.of("10.5.0.100/30")));

        CliRun run = lbk8s("migrate");

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.err())
                .isEqualTo(
                        "error: IPAddressPool \"default\" already exists in lbk8s-system with another spec than the "
                                + "one from IPAddressPool metallb-system/default: rename or remove one of them\nnothing was created\n");
        assertThat(names(ConfigResources.IP_ADDRESS_POOLS, NS)).containsExactly("default");
        assertThat(names(ConfigResources.L2_ADVERTISEMENTS, NS)).isEmpty();
    }

    @Test
    void bgpInTheLegacyConfigMapIsLeftOutWithASentenceAndExitCode2() {
        client.configMaps()
                .inNamespace(METALLB)
                .withName("config")
                .edit(c -> new ConfigMapBuilder(c)
                        .withData(Map.of(
                                "config", LEGACY + "- {name: routed, protocol: bgp, addresses: [198.51.100.0/24]}\n"))
                        .build());

        CliRun run = lbk8s("migrate", "--from", METALLB);

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo(
                        "left out: ConfigMap metallb-system/config: pool \"routed\" uses protocol \"bgp\", not layer2: "
                                + "left out, lbk8s migrate converts layer2 pools only (write an IPAddressPool and a BGPAdvertisement for it)\n");
        assertThat(names(ConfigResources.IP_ADDRESS_POOLS, NS)).containsExactly("default", "legacy");
    }

    @Test
    void bgpObjectsAreCopiedAndAPasswordSecretIsLeftToTheUser() {
        create(
                ConfigResources.BGP_PEERS,
                "BGPPeer",
                METALLB,
                "tor",
                Map.of(
                        "myASN",
                        64512,
                        "peerASN",
                        64500,
                        "peerAddress",
                        "192.168.1.1",
                        "bfdProfile",
                        "fast",
                        "passwordSecret",
                        Map.of("name", "tor-md5", "namespace", METALLB)));
        create(
                ConfigResources.BGP_ADVERTISEMENTS,
                "BGPAdvertisement",
                METALLB,
                "routed",
                Map.of("ipAddressPools", List.of("default"), "communities", List.of("no-export")));
        create(
                ConfigResources.COMMUNITIES,
                "Community",
                METALLB,
                "aliases",
                Map.of("communities", List.of(Map.of("name", "no-export", "value", "65535:65281"))));
        create(ConfigResources.BFD_PROFILES, "BFDProfile", METALLB, "fast", Map.of("receiveInterval", 300));
        assertThat(lbk8s("status").out())
                .contains("configuration not read: found 1 IPAddressPool, 1 L2Advertisement, 1 BGPPeer, "
                        + "1 BGPAdvertisement, 1 Community and 1 BFDProfile in metallb-system and MetalLB's legacy "
                        + "ConfigMap metallb-system/config, which lbk8s does not read");

        CliRun run = lbk8s("migrate");

        assertThat(run.code()).as(run.err()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo("left out: BGPPeer metallb-system/tor: its passwordSecret \"tor-md5\" is a Secret in "
                        + "metallb-system, which lbk8s migrate does not copy: create Secret \"tor-md5\" in lbk8s-system "
                        + "with the same password (key \"password\")\n");
        assertThat(run.out())
                .contains(
                        "community.metallb.io/aliases created in lbk8s-system (from Community metallb-system/aliases)\n"
                                + "bfdprofile.metallb.io/fast created in lbk8s-system (from BFDProfile metallb-system/fast)\n"
                                + "bgppeer.metallb.io/tor created in lbk8s-system (from BGPPeer metallb-system/tor)\n",
                        "bgpadvertisement.metallb.io/routed created in lbk8s-system (from BGPAdvertisement "
                                + "metallb-system/routed)\n",
                        "  kubectl delete bgppeers.metallb.io -n metallb-system tor\n",
                        "  kubectl delete communities.metallb.io -n metallb-system aliases\n");
        assertThat(names(ConfigResources.BGP_PEERS, NS)).containsExactly("tor");
        assertThat(names(ConfigResources.BGP_ADVERTISEMENTS, NS)).containsExactly("routed");
        assertThat(names(ConfigResources.COMMUNITIES, NS)).containsExactly("aliases");
        assertThat(names(ConfigResources.BFD_PROFILES, NS)).containsExactly("fast");
        // the copy names the Secret of lbk8s's namespace, where the speaker reads it
        GenericKubernetesResource peer = client.genericKubernetesResources(ConfigResources.BGP_PEERS)
                .inNamespace(NS)
                .withName("tor")
                .get();
        assertThat(peer.getApiVersion()).isEqualTo("metallb.io/v1beta2");
        assertThat(((Map<?, ?>) peer.getAdditionalProperties().get("spec")).get("passwordSecret"))
                .isEqualTo(Map.of("name", "tor-md5"));
        assertThat(names(ConfigResources.BGP_PEERS, METALLB)).containsExactly("tor");
    }
}

package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.kube.ConfigResources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Configuration where lbk8s does not read it (MetalLB's namespace, its legacy ConfigMap): a Service left without an
 * address is told what was found and where lbk8s reads, and each such object gets a Warning of its own.
 */
class MisplacedConfigApiTest {
    static final String METALLB = "metallb-system";
    static final String LEGACY =
            "address-pools:\n- name: default\n  protocol: layer2\n  addresses: [192.168.1.240-192.168.1.250]\n";

    private ControllerHarness lb;

    @AfterEach
    void tearDown() {
        if (lb != null) {
            lb.close();
        }
    }

    private void namespace(String name) {
        lb.client
                .namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build())
                .create();
    }

    private void create(
            ResourceDefinitionContext context, String kind, String namespace, String name, Map<String, Object> spec) {
        lb.client
                .genericKubernetesResources(context)
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

    private String awaitAllocationFailed(String service, String containing) {
        return await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> lb.events("default", service).stream()
                                .filter(e -> "AllocationFailed".equals(e.getReason()))
                                .map(Event::getMessage)
                                .filter(m -> m.contains(containing))
                                .reduce((a, b) -> b),
                        java.util.Optional::isPresent)
                .get();
    }

    @Test
    void aServiceWithoutAPoolIsToldOfThePoolsInMetalLbsNamespaceAndOfTheLegacyConfigMap() throws Exception {
        lb = ControllerHarness.started();
        namespace(METALLB);
        create(
                ConfigResources.IP_ADDRESS_POOLS,
                "IPAddressPool",
                METALLB,
                "first",
                Map.of("addresses", List.of("10.5.0.200/30")));
        create(
                ConfigResources.IP_ADDRESS_POOLS,
                "IPAddressPool",
                METALLB,
                "second",
                Map.of("addresses", List.of("10.5.0.210/30")));
        create(ConfigResources.L2_ADVERTISEMENTS, "L2Advertisement", METALLB, "all", Map.of());
        lb.client
                .configMaps()
                .inNamespace(METALLB)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("config")
                        .withNamespace(METALLB)
                        .endMetadata()
                        .withData(Map.of("config", LEGACY))
                        .build())
                .create();

        lb.service("web");

        assertThat(awaitAllocationFailed("web", "found"))
                .isEqualTo(
                        "no address pool is configured in namespace lbk8s-system; "
                                + "found 2 IPAddressPools and 1 L2Advertisement in metallb-system and MetalLB's legacy ConfigMap "
                                + "metallb-system/config, which lbk8s does not read: run \"lbk8s migrate -n lbk8s-system --dry-run\"");
        assertThat(lb.ips("default", "web")).isEmpty();
        assertThat(lb.awaitEvent(METALLB, "first", "ConfigurationNotRead").getMessage())
                .isEqualTo("lbk8s reads IPAddressPools only "
                        + "in namespace lbk8s-system, so it does not use this one: run \"lbk8s migrate -n lbk8s-system --dry-run\" to see it "
                        + "moved into lbk8s-system");
        Event onConfigMap = lb.awaitEvent(METALLB, "config", "ConfigurationNotRead");
        assertThat(onConfigMap.getType()).isEqualTo("Warning");
        assertThat(onConfigMap.getInvolvedObject().getKind()).isEqualTo("ConfigMap");
        assertThat(onConfigMap.getMessage())
                .startsWith("this is MetalLB's legacy (before 0.13) configuration, which lbk8s does not read");
        lb.awaitEvent(METALLB, "all", "ConfigurationNotRead");

        // once a pool is where lbk8s reads, the Service gets its address and the objects elsewhere change nothing
        lb.pool("default", "10.5.0.220/30");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.220");
    }

    @Test
    void poolsCreatedElsewhereAfterTheServiceFailedAreNamedInANewEvent() throws Exception {
        lb = ControllerHarness.started();
        lb.service("web");
        assertThat(awaitAllocationFailed("web", "no address pool"))
                .isEqualTo("no address pool is configured in namespace lbk8s-system");

        namespace("team-a");
        create(
                ConfigResources.IP_ADDRESS_POOLS,
                "IPAddressPool",
                "team-a",
                "mine",
                Map.of("addresses", List.of("10.5.0.200/30")));

        assertThat(awaitAllocationFailed("web", "team-a"))
                .isEqualTo(
                        "no address pool is configured in namespace lbk8s-system; "
                                + "found 1 IPAddressPool in team-a, which lbk8s does not read: run \"lbk8s migrate -n lbk8s-system --dry-run\"");
        assertThat(lb.awaitEvent("team-a", "mine", "ConfigurationNotRead").getType())
                .isEqualTo("Warning");
    }

    @Test
    void bgpObjectsInAnotherNamespaceAreToldAtOnceThoughEveryServiceHasItsAddress() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.220/30");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.220");

        namespace(METALLB);
        create(
                ConfigResources.BGP_PEERS,
                "BGPPeer",
                METALLB,
                "tor",
                Map.of("myASN", 64512, "peerASN", 64500, "peerAddress", "192.168.1.1"));
        create(
                ConfigResources.BGP_ADVERTISEMENTS,
                "BGPAdvertisement",
                METALLB,
                "all",
                Map.of("ipAddressPools", List.of("default")));
        create(
                ConfigResources.COMMUNITIES,
                "Community",
                METALLB,
                "aliases",
                Map.of("communities", List.of(Map.of("name", "no-export", "value", "65535:65281"))));
        create(ConfigResources.BFD_PROFILES, "BFDProfile", METALLB, "fast", Map.of("receiveInterval", 300));
        // lbk8s's own BGPPeer is read, not told anything
        create(
                ConfigResources.BGP_PEERS,
                "BGPPeer",
                "lbk8s-system",
                "mine",
                Map.of("myASN", 64512, "peerASN", 64500, "peerAddress", "192.168.1.2"));

        Event onPeer = lb.awaitEvent(METALLB, "tor", "ConfigurationNotRead");
        assertThat(onPeer.getType()).isEqualTo("Warning");
        assertThat(onPeer.getInvolvedObject().getKind()).isEqualTo("BGPPeer");
        assertThat(onPeer.getMessage())
                .isEqualTo("lbk8s reads BGPPeers only in namespace lbk8s-system, so it does not use this one: run "
                        + "\"lbk8s migrate -n lbk8s-system --dry-run\" to see it moved into lbk8s-system");
        assertThat(lb.awaitEvent(METALLB, "all", "ConfigurationNotRead")
                        .getInvolvedObject()
                        .getKind())
                .isEqualTo("BGPAdvertisement");
        assertThat(lb.awaitEvent(METALLB, "aliases", "ConfigurationNotRead").getMessage())
                .startsWith("lbk8s reads Communities only in namespace lbk8s-system");
        assertThat(lb.awaitEvent(METALLB, "fast", "ConfigurationNotRead")
                        .getInvolvedObject()
                        .getKind())
                .isEqualTo("BFDProfile");
        assertThat(lb.events("lbk8s-system", "mine")).noneMatch(e -> "ConfigurationNotRead".equals(e.getReason()));
        assertThat(lb.events("default", "web")).noneMatch(e -> "AllocationFailed".equals(e.getReason()));
    }
}

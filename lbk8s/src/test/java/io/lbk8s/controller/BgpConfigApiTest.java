package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.ConfigResources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MetalLB's BGP objects, as a user applies them, are judged by the controller like the pools: a bad one gets an
 * Event naming the field, the others are used, and {@code lbk8s status} says the same.
 */
class BgpConfigApiTest {
    static final String NS = ControllerHarness.DEFAULT_NAMESPACE;

    ControllerHarness lb;

    @AfterEach
    void stop() {
        if (lb != null) {
            lb.close();
        }
    }

    @Test
    void aBadBgpPeerGetsTheEventAndTheGoodObjectsNone(@TempDir Path dir) throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        create(ConfigResources.BFD_PROFILES, "fast", Map.of("receiveInterval", 100, "echoMode", true));
        create(
                ConfigResources.BGP_PEERS,
                "router",
                Map.of("myASN", 64500, "peerASN", 64501, "peerAddress", "10.5.0.1"));
        create(
                ConfigResources.BGP_PEERS,
                "typo",
                Map.of("myASN", 64500, "peerAddress", "10.5.0.2", "bfdProfile", "fsat"));
        create(ConfigResources.BGP_ADVERTISEMENTS, "default", Map.of("ipAddressPools", java.util.List.of("default")));

        // one Event per problem, in no promised order
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(lb.events(NS, "typo"))
                        .filteredOn(e -> "InvalidConfiguration".equals(e.getReason()))
                        .extracting(Event::getMessage)
                        .contains(
                                "peerASN or dynamicASN is required: peerASN is the peer's AS number; dynamicASN,"
                                        + " internal or external, accepts the AS the peer announces; lbk8s does not"
                                        + " use this object until it is fixed",
                                "bfdProfile: BFDProfile \"fsat\" does not exist; lbk8s does not use this object until"
                                        + " it is fixed"));
        assertThat(lb.awaitEvent(NS, "fast", "ConfigurationWarning").getMessage())
                .startsWith("echoMode is not supported by lbk8s");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200"); // a bad BGPPeer takes no pool down
        assertThat(lb.events(NS, "router")).isEmpty();
        assertThat(lb.events(NS, "default")).isEmpty();

        CliRun status = CliRun.of(lb.server.writeKubeconfig(dir.resolve("kubeconfig")), "status");
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .contains("configuration error: ERROR BGPPeer lbk8s-system/typo: peerASN or dynamicASN is required")
                .contains("bfdProfile: BFDProfile \"fsat\" does not exist");
    }

    void create(ResourceDefinitionContext kind, String name, Map<String, Object> spec) {
        lb.client
                .genericKubernetesResources(kind)
                .inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion(kind.getGroup() + "/" + kind.getVersion())
                        .withKind(kind.getKind())
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build())
                .create();
    }
}

package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.lbk8s.cli.CliRun;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.service.Annotations;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One bad configuration object is refused alone, with the reason on that object, while every valid one serves, and
 * {@code lbk8s status} shows the same.
 */
class RefusedObjectApiTest {
    static final String NS = ControllerHarness.DEFAULT_NAMESPACE;

    ControllerHarness lb;

    @AfterEach
    void stop() {
        if (lb != null) {
            lb.close();
        }
    }

    @Test
    void aPoolOverEveryAddressIsRefusedAloneAndPoolsAppliedAfterItServe(@TempDir Path dir) throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("before");
        assertThat(lb.awaitIp("before")).isEqualTo("10.5.0.200");

        lb.pool("all", "10.0.0.0/8");
        lb.pool("later", "10.6.0.10-10.6.0.20");
        assertThat(lb.awaitEvent(NS, "all", "InvalidConfiguration").getMessage())
                .contains("\"10.0.0.0/8\" overlaps addresses[0] \"10.5.0.200-10.5.0.220\" of pool \"default\"")
                .endsWith("lbk8s does not use this object until it is fixed");
        lb.service(
                "default",
                "asks-later",
                b -> b.editMetadata()
                        .addToAnnotations(Annotations.METALLB_POOL, "later")
                        .endMetadata());
        assertThat(lb.awaitIps("default", "asks-later")).containsExactly("10.6.0.10");
        lb.service("after");
        assertThat(lb.awaitIps("default", "after")).containsExactly("10.5.0.201");
        assertThat(lb.events(NS, "default")).extracting(Event::getReason).doesNotContain("InvalidConfiguration");
        assertThat(lb.events(NS, "later")).extracting(Event::getReason).doesNotContain("InvalidConfiguration");

        String status = status(dir);
        assertThat(status)
                .containsPattern("(?m)^default +10\\.5\\.0\\.200-10\\.5\\.0\\.220 ")
                .containsPattern("(?m)^later +10\\.6\\.0\\.10-10\\.6\\.0\\.20 ")
                .doesNotContainPattern("(?m)^all ")
                .contains(
                        "configuration error: ERROR IPAddressPool lbk8s-system/all: addresses[0] \"10.0.0.0/8\" overlaps");
    }

    @Test
    void aPoolEditedIntoSomethingInvalidKeepsServingAtItsAcceptedVersion(@TempDir Path dir) throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("before");
        assertThat(lb.awaitIp("before")).isEqualTo("10.5.0.200");
        lb.awaitPoolAnnotation("default", "before", "default");

        lb.pool("default", Map.of("addresses", List.of("10.5.0.300-10.5.0.320")));
        assertThat(lb.awaitEvent(NS, "default", "InvalidConfiguration").getMessage())
                .contains("\"10.5.0.300\" is not an IP address")
                .endsWith("lbk8s keeps using the version of this object it last accepted");
        lb.service("after");
        assertThat(lb.awaitIps("default", "after")).containsExactly("10.5.0.201");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");

        // the accepted version outlives a restart (the controller records it in its ConfigurationState), and
        // lbk8s status judges with it too
        lb.stopController();
        lb.startController();
        lb.service("after-restart");
        assertThat(lb.awaitIps("default", "after-restart")).containsExactly("10.5.0.202");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");
        assertThat(status(dir))
                .containsPattern("(?m)^default +10\\.5\\.0\\.200-10\\.5\\.0\\.220 ")
                .contains(
                        "configuration error: ERROR IPAddressPool lbk8s-system/default: addresses[0] \"10.5.0.300-10.5.0.320\"");

        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("fixed");
        assertThat(lb.awaitIps("default", "fixed")).containsExactly("10.5.0.203");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");
    }

    /** Nothing remembers a refused pool's addresses (its ConfigurationState lost): its Services keep them all the same. */
    @Test
    void withoutARecordAServiceOfARefusedPoolKeepsItsAddresses() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("before");
        assertThat(lb.awaitIp("before")).isEqualTo("10.5.0.200");
        lb.awaitPoolAnnotation("default", "before", "default");
        lb.stopController();
        lb.client
                .genericKubernetesResources(ConfigurationStates.CONTEXT)
                .inNamespace(NS)
                .delete();
        lb.pool("default", Map.of("addresses", List.of("10.5.0.300-10.5.0.320")));
        lb.startController();

        Event kept = await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> lb.events("default", "before").stream()
                                .filter(e -> e.getMessage().contains("no pool in use holds them"))
                                .findFirst(),
                        Optional::isPresent)
                .get();
        assertThat(kept.getMessage()).contains("the refused IPAddressPool lbk8s-system/default may");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");

        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("fixed");
        assertThat(lb.awaitIps("default", "fixed")).containsExactly("10.5.0.201");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");
    }

    private String status(Path dir) throws Exception {
        CliRun status = CliRun.of(lb.server.writeKubeconfig(dir.resolve("kubeconfig")), "status");
        assertThat(status.code()).as(status.err()).isZero();
        return status.out();
    }
}

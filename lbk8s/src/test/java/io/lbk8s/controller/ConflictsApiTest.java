package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.address.IpAddress;
import io.lbk8s.cli.CliRun;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.conflict.AddressConflict.Phase;
import io.lbk8s.conflict.ConflictPolicy;
import io.lbk8s.kube.AddressConflicts;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the controller does with the AddressConflicts the speakers write (as a speaker would write them here): a
 * conflicted address goes to no new Service, the Service holding one moves or keeps it as {@link ConflictPolicy}
 * says and is told, and the address is free again when the conflict clears or turns stale.
 */
class ConflictsApiTest {
    private static final String MAC = "52:54:00:aa:bb:cc";
    private ControllerHarness lb;
    private AddressConflicts conflicts;

    @BeforeEach
    void setUp() throws Exception {
        lb = ControllerHarness.started();
        conflicts = new AddressConflicts(lb.client);
        lb.pool("homelab", "192.168.1.240-192.168.1.243");
    }

    @AfterEach
    void tearDown() {
        lb.close();
    }

    private void report(String address, Phase phase, Instant lastSeen) {
        conflicts.report(new AddressConflict(
                IpAddress.parse(address).orElseThrow(),
                MAC,
                "node-a",
                phase,
                Optional.empty(),
                lastSeen,
                lastSeen,
                ""));
    }

    @Test
    void aConflictedAddressGoesToNoNewServiceUntilTheConflictClears() {
        report("192.168.1.240", Phase.Probe, Instant.now());
        await().atMost(ControllerHarness.PATIENCE).until(lb::metrics, m -> m.contains("lbk8s_address_conflicts 1.0"));

        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.241");

        conflicts.clear(IpAddress.parse("192.168.1.240").orElseThrow());
        await().atMost(ControllerHarness.PATIENCE).until(lb::metrics, m -> m.contains("lbk8s_address_conflicts 0.0"));
        lb.service("api");
        assertThat(lb.awaitIp("api")).isEqualTo("192.168.1.240");
    }

    @Test
    void aServiceWhoseAddressFailedItsFirstProbeMovesAndIsToldWhy() {
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.240");

        report("192.168.1.240", Phase.Probe, Instant.now());

        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web"), ips -> ips.equals(List.of("192.168.1.241")));
        assertThat(lb.awaitEvent("default", "web", "AddressExcluded").getMessage())
                .isEqualTo("192.168.1.240 (used by"
                        + " another host, 52:54:00:aa:bb:cc (seen by node node-a); 192.168.1.240 was never reachable through lbk8s"
                        + " (the other host answered its first probe)) is not given to any Service; it moves to 192.168.1.241 from"
                        + " pool homelab");
    }

    @Test
    void aServiceKeepsAnAddressTakenWhileAnnouncedAndIsWarned() {
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.240");

        report("192.168.1.240", Phase.Announced, Instant.now());

        assertThat(lb.awaitEvent("default", "web", "AddressConflict").getMessage())
                .startsWith("192.168.1.240 is used by"
                        + " another host, 52:54:00:aa:bb:cc (seen by node node-a): the other host took 192.168.1.240 while lbk8s"
                        + " announced it");
        assertThat(lb.ips("default", "web")).containsExactly("192.168.1.240");
        lb.service("api");
        assertThat(lb.awaitIp("api")).isEqualTo("192.168.1.241");

        // it asks to move: the annotation overrides the default
        lb.client.services().inNamespace("default").withName("web").edit(s -> {
            s.getMetadata().getAnnotations().put(ConflictPolicy.ANNOTATION, "move");
            return s;
        });
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web"), ips -> ips.equals(List.of("192.168.1.242")));
    }

    @Test
    void aServiceThatAskedForTheAddressKeepsIt() {
        lb.service(
                "default",
                "web",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/loadBalancerIPs", "192.168.1.240")
                        .endMetadata());
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.240");

        report("192.168.1.240", Phase.Probe, Instant.now());

        assertThat(lb.awaitEvent("default", "web", "AddressConflict").getMessage())
                .contains("the Service asked for 192.168.1.240, so it keeps it");
        assertThat(lb.ips("default", "web")).containsExactly("192.168.1.240");
    }

    @Test
    void aStaleConflictCountsForNothing(@TempDir Path dir) throws Exception {
        report(
                "192.168.1.240",
                Phase.Probe,
                Instant.now().minus(AddressConflict.STALE_AFTER).minus(Duration.ofSeconds(1)));
        report("192.168.1.241", Phase.Probe, Instant.now());

        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.240");
        await().atMost(ControllerHarness.PATIENCE).until(lb::metrics, m -> m.contains("lbk8s_address_conflicts 1.0"));

        CliRun status = CliRun.of(lb.server.writeKubeconfig(dir.resolve("kubeconfig")), "status");
        assertThat(status.code()).as(status.err()).isZero();
        assertThat(status.out())
                .contains("Address conflicts: 192.168.1.241 used by another host, 52:54:00:aa:bb:cc"
                        + " (seen by node node-a, phase Probe)")
                .doesNotContain("192.168.1.240 used by");
    }

    @Test
    void anInvalidPolicyIsSaidAndTheDefaultApplies() {
        lb.service(
                "default",
                "web",
                b -> b.editMetadata()
                        .addToAnnotations(ConflictPolicy.ANNOTATION, "stay")
                        .endMetadata());
        assertThat(lb.awaitIp("web")).isEqualTo("192.168.1.240");

        report("192.168.1.240", Phase.Announced, Instant.now());

        assertThat(lb.awaitEvent("default", "web", "InvalidAnnotation").getMessage())
                .contains(ConflictPolicy.ANNOTATION + " is \"stay\"; it must be keep or move");
        assertThat(lb.awaitEvent("default", "web", "AddressConflict").getMessage())
                .contains("while lbk8s announced it");
        assertThat(lb.ips("default", "web")).containsExactly("192.168.1.240");
    }
}

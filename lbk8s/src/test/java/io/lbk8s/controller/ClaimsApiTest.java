package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.Claim;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.kube.ServiceMapping;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * IPAddressClaims as a user sees them with {@code kubectl get ipaddressclaims}: one per address shown in a Service's
 * status, named from the address, gone with the Service; and what they guarantee when two controllers lead at once.
 */
class ClaimsApiTest {
    private ControllerHarness lb;

    @AfterEach
    void tearDown() {
        if (lb != null) {
            lb.close();
        }
    }

    private Optional<GenericKubernetesResource> claimObject(String address) {
        return Optional.ofNullable(lb.client
                .genericKubernetesResources(IpAddressClaims.CONTEXT)
                .withName(Claim.nameOf(IpAddress.parse(address).orElseThrow()))
                .get());
    }

    private Optional<Claim> claim(String address) {
        return claimObject(address).flatMap(IpAddressClaims::toClaim);
    }

    private List<Claim> claims() {
        return lb.client.genericKubernetesResources(IpAddressClaims.CONTEXT).list().getItems().stream()
                .map(IpAddressClaims::toClaim)
                .flatMap(Optional::stream)
                .toList();
    }

    /** A claim as a controller that stopped right after writing it would leave it. */
    private void writeClaim(String address, Service holder) {
        lb.client
                .genericKubernetesResources(IpAddressClaims.CONTEXT)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion("lbk8s.io/v1alpha1")
                        .withKind("IPAddressClaim")
                        .withNewMetadata()
                        .withName(Claim.nameOf(IpAddress.parse(address).orElseThrow()))
                        .endMetadata()
                        .withAdditionalProperties(Map.of(
                                "spec",
                                Map.of(
                                        "address",
                                        address,
                                        "pool",
                                        "default",
                                        "services",
                                        List.of(Map.of(
                                                "namespace",
                                                holder.getMetadata().getNamespace(),
                                                "name",
                                                holder.getMetadata().getName(),
                                                "uid",
                                                holder.getMetadata().getUid())))))
                        .build())
                .create();
    }

    @Test
    void anAddressShownComesWithAClaimNamedFromItThatGoesWithTheService() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.202", "fd00::10/127");
        Service web = lb.service(
                "default",
                "web",
                b -> b.editSpec()
                        .withIpFamilyPolicy("RequireDualStack")
                        .withIpFamilies("IPv4", "IPv6")
                        .endSpec());

        assertThat(lb.awaitIps("default", "web")).containsExactly("10.5.0.200", "fd00::10");
        GenericKubernetesResource v4 = claimObject("10.5.0.200").orElseThrow();
        assertThat(v4.getMetadata().getName()).isEqualTo("10.5.0.200");
        assertThat(claim("10.5.0.200").orElseThrow().holders())
                .singleElement()
                .satisfies(h -> assertThat(h.uid()).isEqualTo(web.getMetadata().getUid()));
        assertThat(v4.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getKind()).isEqualTo("Namespace");
            assertThat(owner.getName()).isEqualTo("default");
            assertThat(owner.getUid())
                    .isEqualTo(lb.client
                            .namespaces()
                            .withName("default")
                            .get()
                            .getMetadata()
                            .getUid());
        });
        assertThat(claimObject("fd00::10").orElseThrow().getMetadata().getName())
                .isEqualTo("fd00-0000-0000-0000-0000-0000-0000-0010");

        lb.client.services().inNamespace("default").withName("web").delete();
        await().atMost(ControllerHarness.PATIENCE).until(this::claims, List::isEmpty);
    }

    @Test
    void aNewAddressIsClaimedBeforeItIsShownAndTheOldClaimLetGoAfter() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.210");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200");

        // a merge patch, as kubectl annotate sends it: no resourceVersion, so the controller's own writes do not race
        // it
        lb.client
                .services()
                .inNamespace("default")
                .withName("web")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"metallb.io/loadBalancerIPs\":\"10.5.0.207\"}}}");

        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.ips("default", "web"), List.of("10.5.0.207")::equals);
        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> claims().stream().map(c -> c.address().toString()).toList(),
                        List.of("10.5.0.207")::equals);
    }

    @Test
    void aServiceThatHoldsAClaimButShowsNothingYetGetsThatAddressFromTheNextLeader() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.pool("default", "10.5.0.200-10.5.0.210");
        Service web = lb.service("web");
        writeClaim("10.5.0.205", web);

        lb.startController();

        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.205");
        lb.service("next");
        assertThat(lb.awaitIp("next")).isEqualTo("10.5.0.200");
    }

    @Test
    void claimsOfDeletedServicesAreLetGoAndShownAddressesWithoutOneAreClaimed() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.pool("default", "10.5.0.200-10.5.0.201");
        Service gone = lb.service("gone");
        writeClaim("10.5.0.200", gone);
        lb.client.services().inNamespace("default").withName("gone").delete();
        Service old = lb.service("old");
        lb.setIngress("default", "old", "10.5.0.201"); // shown before claims existed (an upgrade)

        lb.startController();

        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> claim("10.5.0.201")
                                .map(c -> c.holders().getFirst().uid()),
                        Optional.of(old.getMetadata().getUid())::equals);
        await().atMost(ControllerHarness.PATIENCE).until(() -> claim("10.5.0.200"), Optional::isEmpty);
        lb.service("new");
        assertThat(lb.awaitIp("new")).isEqualTo("10.5.0.200");
        assertThat(lb.ips("default", "old")).containsExactly("10.5.0.201");
    }

    @Test
    void aServiceShowingAnAddressAnotherServiceHoldsTheClaimOfGetsAnotherAndIsToldWhy() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.pool("default", "10.5.0.200-10.5.0.210");
        Service owner = lb.service("owner");
        lb.setIngress("default", "owner", "10.5.0.200");
        writeClaim("10.5.0.200", owner);
        lb.service("copy");
        lb.setIngress(
                "default", "copy", "10.5.0.200"); // a duplicate written by hand, or by a controller without claims

        lb.startController();

        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "copy"), List.of("10.5.0.201")::equals);
        assertThat(lb.ips("default", "owner")).containsExactly("10.5.0.200");
        assertThat(lb.awaitEvent("default", "copy", "AddressClaimed").getMessage())
                .contains("[10.5.0.200]")
                .contains("default/owner holds the IPAddressClaim")
                .contains("gets another address");
    }

    @Test
    void withoutTheClaimsCrdNoAddressIsShownAndReadinessSaysWhatToApply(@TempDir Path crds) throws Exception {
        try (var files = Files.list(Path.of("..", "deploy", "crds"))) {
            for (Path crd : files.filter(f -> !f.getFileName().toString().startsWith("lbk8s.io_"))
                    .toList()) {
                Files.copy(crd, crds.resolve(crd.getFileName()));
            }
        }
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty(), crds);
        lb.startController();
        lb.pool("default", "10.5.0.200-10.5.0.210");
        lb.service("web");

        await().atMost(ControllerHarness.PATIENCE)
                .until(
                        () -> lb.controller().readiness().reason(),
                        reason ->
                                reason.contains("the IPAddressClaim CRD (ipaddressclaims.lbk8s.io) is not installed"));
        assertThat(lb.controller().readiness().ready()).isFalse();
        assertThat(lb.controller().readiness().reason()).contains("kubectl apply -f deploy/crds/");
        assertThat(lb.ips("default", "web")).isEmpty();
        assertThat(lb.metrics())
                .as("each failed pass is retried after a backoff")
                .containsPattern("lbk8s_workqueue_retries_total\\{name=\"controller\"} [1-9]");

        Path upgrade = Files.createDirectory(crds.resolve("upgrade"));
        Files.copy(
                Path.of("..", "deploy", "crds", "lbk8s.io_ipaddressclaims.yaml"),
                upgrade.resolve("lbk8s.io_ipaddressclaims.yaml"));
        lb.server.createCrds(upgrade);
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().ready());
    }

    @Test
    void twoControllersLeadingAtOnceNeverShowOneAddressInTwoServices() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.0-10.5.0.59");
        // The rival's pool holds the same addresses in another order, so that the two allocators choose differently
        // (as two controller versions during an upgrade can): only the claims keep them apart.
        try (var rival = lb.rivalController("lbk8s-rival")) {
            rival.pool("default", "10.5.0.30-10.5.0.59", "10.5.0.0-10.5.0.29");
            int count = 60;
            try (var pool = Executors.newFixedThreadPool(8)) {
                IntStream.range(0, count).forEach(i -> pool.submit(() -> lb.service("s" + i)));
            }
            Map<String, List<String>> seen = new HashMap<>();
            await().atMost(ControllerHarness.PATIENCE.multipliedBy(2))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        Map<String, String> now = new HashMap<>();
                        for (Service s : lb.client
                                .services()
                                .inNamespace("default")
                                .list()
                                .getItems()) {
                            List<String> ips = ServiceMapping.statusIps(s).stream()
                                    .map(Object::toString)
                                    .toList();
                            ips.forEach(ip -> {
                                String other = now.put(ip, s.getMetadata().getName());
                                assertThat(other)
                                        .as(
                                                "%s shown by %s and %s",
                                                ip, other, s.getMetadata().getName())
                                        .isNull();
                            });
                            if (!ips.isEmpty()) {
                                seen.computeIfAbsent(s.getMetadata().getName(), _ -> new ArrayList<>())
                                        .add(ips.getFirst());
                            }
                        }
                        return now.size() == count;
                    });
            seen.forEach((name, shown) -> assertThat(shown.stream().distinct())
                    .as("addresses %s showed", name)
                    .hasSize(1));
            assertThat(claims())
                    .hasSize(count)
                    .allSatisfy(c -> assertThat(lb.ips(
                                    "default", c.holders().getFirst().service().name()))
                            .containsExactly(c.address().toString()));
        }
    }
}

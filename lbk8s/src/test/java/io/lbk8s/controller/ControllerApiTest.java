package io.lbk8s.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The controller against the test API server, checked as a user would with kubectl: status, annotations, events. */
class ControllerApiTest {
    private ControllerHarness lb;

    @AfterEach
    void tearDown() {
        if (lb != null) {
            lb.close();
        }
    }

    /** Waits until the controller has surely reconciled everything created so far (a control Service got its IP). */
    private void settle(String controlName) {
        lb.service(controlName);
        lb.awaitIp(controlName);
    }

    @Test
    void serviceGetsTheFirstAddressOfTheReferenceDesignPool() throws Exception {
        lb = ControllerHarness.started();
        lb.configMap("pools:\n- name: default\n  addresses: [\"10.5.0.200-10.5.0.220\"]\n");
        lb.service("whoami");

        assertThat(lb.awaitIp("whoami")).isEqualTo("10.5.0.200");
        lb.awaitPoolAnnotation("default", "whoami", "default");
        Service service = lb.get("default", "whoami");
        assertThat(lb.awaitEvent("default", "whoami", "IPAllocated").getMessage())
                .isEqualTo("Assigned IP [\"10.5.0.200\"] from pool default");
        assertThat(service.getSpec().getPorts()).hasSize(1);
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().ready());
    }

    @Test
    void exhaustedPoolLeavesServicePendingUntilAnAddressIsFreed() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("vip", "192.0.2.10/32");
        lb.service("first");
        assertThat(lb.awaitIp("first")).isEqualTo("192.0.2.10");

        lb.service("second");
        assertThat(lb.awaitEvent("default", "second", "AllocationFailed").getMessage())
                .contains("pool \"vip\"")
                .contains("no free address");
        assertThat(lb.ips("default", "second")).isEmpty();
        assertThat(lb.metrics())
                .as("counted, once per attempt (a Service update brings another)")
                .containsPattern("lbk8s_allocation_failures_total\\{reason=\"POOL_EXHAUSTED\"} [1-9]");

        lb.client.services().inNamespace("default").withName("first").delete();
        assertThat(lb.awaitIp("second")).isEqualTo("192.0.2.10");
    }

    @Test
    void everyServiceKeepsItsAddressAcrossAControllerRestart() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("b-one");
        assertThat(lb.awaitIp("b-one")).isEqualTo("10.5.0.200");
        lb.service("b-two");
        assertThat(lb.awaitIp("b-two")).isEqualTo("10.5.0.201");
        lb.client.services().inNamespace("default").withName("b-one").delete();
        lb.service("b-three");
        assertThat(lb.awaitIp("b-three")).isEqualTo("10.5.0.200");

        lb.stopController();
        // Created while the controller is down and sorted first: without the restore pass it would take .200.
        lb.service("a-new");
        lb.startController();

        assertThat(lb.awaitIp("a-new")).isEqualTo("10.5.0.202");
        assertThat(lb.ips("default", "b-three")).containsExactly("10.5.0.200");
        assertThat(lb.ips("default", "b-two")).containsExactly("10.5.0.201");
    }

    @Test
    void deletingAPoolMovesItsServicesToAnotherPool() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("a-first", "10.0.0.10/32");
        lb.pool("b-second", "10.0.1.10-10.0.1.20");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.0.0.10");

        lb.deletePool("a-first");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web"), ips -> ips.equals(List.of("10.0.1.10")));
        lb.awaitPoolAnnotation("default", "web", "b-second");
        assertThat(lb.awaitEvent("default", "web", "ClearAssignment").getMessage())
                .contains("pool");
    }

    @Test
    void removingAllPoolsClearsTheAddresses() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("only", "10.0.0.10/32");
        lb.service("web");
        lb.awaitIp("web");

        lb.deletePool("only");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web").isEmpty());
        // the status is cleared first, the pool annotation right after it: two writes
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> Optional.ofNullable(
                                lb.get("default", "web").getMetadata().getAnnotations())
                        .map(a -> !a.containsKey("metallb.io/ip-allocated-from-pool"))
                        .orElse(true));
        assertThat(lb.awaitEvent("default", "web", "AllocationFailed").getMessage())
                .contains("no address pool");
    }

    @Test
    void writingTheAddressKeepsEverythingElseTheServiceHolds() throws Exception {
        lb = ControllerHarness.started();
        lb.service(
                "default",
                "web",
                b -> b.editMetadata()
                        .addToFinalizers("example.com/keep")
                        .addToLabels("team", "a")
                        .endMetadata()
                        .editSpec()
                        .withSessionAffinity("ClientIP")
                        .endSpec());
        Service before = lb.get("default", "web");
        before.setStatus(new ServiceStatusBuilder()
                .addNewCondition()
                .withType("example.com/Checked")
                .withStatus("True")
                .withReason("Checked")
                .withMessage("another controller's condition")
                .withLastTransitionTime("2026-01-01T00:00:00Z")
                .endCondition()
                .build());
        lb.client.services().inNamespace("default").resource(before).updateStatus();

        lb.pool("only", "10.0.0.10/32");
        assertThat(lb.awaitIp("web")).isEqualTo("10.0.0.10");
        Service after = lb.get("default", "web");
        assertThat(after.getMetadata().getFinalizers()).containsExactly("example.com/keep");
        assertThat(after.getMetadata().getLabels()).containsEntry("team", "a");
        assertThat(after.getSpec().getSessionAffinity()).isEqualTo("ClientIP");
        assertThat(after.getStatus().getConditions())
                .singleElement()
                .satisfies(c -> assertThat(c.getMessage()).isEqualTo("another controller's condition"));
        assertThat(after.getStatus().getLoadBalancer().getIngress())
                .singleElement()
                .satisfies(i -> assertThat(i.getIpMode()).isEqualTo("VIP"));

        lb.deletePool("only");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web").isEmpty());
        assertThat(lb.get("default", "web").getStatus().getConditions()).hasSize(1);
    }

    @Test
    void servicesOfAnotherClassOrTypeAreLeftAlone() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service(
                "default",
                "other-class",
                b -> b.editSpec().withLoadBalancerClass("example.com/cloud").endSpec());
        lb.service(
                "default",
                "lbk8s-class",
                b -> b.editSpec().withLoadBalancerClass("lbk8s.io/l2").endSpec());
        lb.service(
                "default", "cluster-ip", b -> b.editSpec().withType("ClusterIP").endSpec());
        lb.awaitIp("lbk8s-class");
        settle("control");

        assertThat(lb.ips("default", "other-class")).isEmpty();
        assertThat(lb.ips("default", "cluster-ip")).isEmpty();
        assertThat(lb.events("default", "other-class")).isEmpty();
    }

    /** Every Service MetalLB served carries its pool annotation: that is no reason to touch one of another class. */
    @Test
    void aServiceOfAnotherClassKeepsWhatItsControllerWrote() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service(
                "default",
                "theirs",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/ip-allocated-from-pool", "default")
                        .endMetadata()
                        .editSpec()
                        .withLoadBalancerClass("other.io/lb")
                        .endSpec());
        lb.setIngress("default", "theirs", "192.0.2.77");
        String written = lb.get("default", "theirs").getMetadata().getResourceVersion();
        settle("control");

        Service theirs = lb.get("default", "theirs");
        assertThat(lb.ips("default", "theirs")).containsExactly("192.0.2.77");
        assertThat(theirs.getMetadata().getAnnotations()).containsEntry("metallb.io/ip-allocated-from-pool", "default");
        assertThat(theirs.getMetadata().getResourceVersion())
                .as("lbk8s wrote nothing to it")
                .isEqualTo(written);
        assertThat(lb.events("default", "theirs")).isEmpty();
    }

    /** Two instances, one with --lb-class, each serving its own class from its own pools: neither writes the other's. */
    @Test
    void twoControllersOfDifferentClassesLeaveEachOthersServicesAlone() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        try (ControllerHarness.Second mine = lb.secondController("mine-system", "example.com/mine")) {
            mine.pool("mine", "10.6.0.10-10.6.0.20");
            lb.service(
                    "default",
                    "classed",
                    b -> b.editSpec().withLoadBalancerClass("example.com/mine").endSpec());
            lb.service("default", "plain", b -> b);
            assertThat(lb.awaitIp("classed")).isEqualTo("10.6.0.10");
            assertThat(lb.awaitIp("plain")).isEqualTo("10.5.0.200");
            settle("control");
            String classed = lb.get("default", "classed").getMetadata().getResourceVersion();
            String plain = lb.get("default", "plain").getMetadata().getResourceVersion();

            Thread.sleep(2000); // time for a few rounds of a fight, if there were one
            assertThat(lb.get("default", "classed").getMetadata().getResourceVersion())
                    .isEqualTo(classed);
            assertThat(lb.get("default", "plain").getMetadata().getResourceVersion())
                    .isEqualTo(plain);
            assertThat(lb.events("default", "classed"))
                    .extracting(e -> e.getReason())
                    .doesNotContain("ClearAssignment");
            assertThat(lb.events("default", "plain"))
                    .extracting(e -> e.getReason())
                    .doesNotContain("ClearAssignment");
        }
    }

    /**
     * The watch of Services breaks in the middle of an event and new watches are refused for a while: the controller
     * says it is not ready meanwhile, and once the API server serves watches again it handles new Services again.
     */
    @Test
    void aBrokenWatchOfServicesRecoversAndReadinessSaysSoMeanwhile() throws Exception {
        lb = ControllerHarness.startedOnTheTestApiServer();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("before");
        assertThat(lb.awaitIp("before")).isEqualTo("10.5.0.200");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().ready());

        lb.faults().dispatcher().breakWatches("", "services");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> !lb.controller().readiness().ready());
        assertThat(lb.controller().readiness().reason()).contains("not watching services");
        assertThat(lb.metrics()).contains("lbk8s_api_watches_down 1.0");
        lb.service("during");

        lb.faults().dispatcher().mendWatches("", "services");
        await().atMost(Duration.ofSeconds(40))
                .until(() -> lb.controller().readiness().ready());
        assertThat(lb.metrics()).contains("lbk8s_api_watches_down 0.0");
        assertThat(lb.awaitIp("during")).as("created while the watch was down").isEqualTo("10.5.0.201");
        lb.service("after");
        assertThat(lb.awaitIp("after")).isEqualTo("10.5.0.202");
    }

    /**
     * A Service deleted while the controller can neither watch nor list Services: the controller, still holding it,
     * writes to it and finds it gone. That is no failure to warn of: its deletion is on its way, and once it comes the
     * address is free.
     */
    @Test
    void aServiceDeletedBehindTheCacheIsNoFailureAndItsAddressIsFreedWhenTheDeletionArrives() throws Exception {
        lb = ControllerHarness.startedOnTheTestApiServer();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("gone");
        assertThat(lb.awaitIp("gone")).isEqualTo("10.5.0.200");
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);
        try {
            lb.faults().dispatcher().breakReads("", "services");
            await().atMost(ControllerHarness.PATIENCE)
                    .until(() -> !lb.controller().readiness().ready());
            lb.client.services().inNamespace("default").withName("gone").delete();
            lb.pool("default", "10.5.0.201-10.5.0.220"); // its address leaves the pool: the controller moves it
            await().atMost(ControllerHarness.PATIENCE)
                    .until(() -> lb.faults().recentRequests().stream()
                            .dropWhile(r -> !r.startsWith("DELETE /api/v1/namespaces/default/services/gone"))
                            .anyMatch(r -> r.startsWith("PATCH /api/v1/namespaces/default/services/gone")));

            lb.faults().dispatcher().mendWatches("", "services");
            await().atMost(Duration.ofSeconds(40))
                    .until(() -> List.copyOf(log.list).stream()
                            .anyMatch(e ->
                                    e.getFormattedMessage().equals("default/gone deleted; its addresses are free")));
            lb.service("next");
            assertThat(lb.awaitIp("next"))
                    .as("the first address of the pool, whatever the deleted Service held")
                    .isEqualTo("10.5.0.201");
        } finally {
            root.detachAppender(log);
        }
        assertThat(log.list)
                .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage)
                .noneMatch(m -> m.contains("gone"));
    }

    /**
     * One {@code kubectl apply} of an IPv4 pool, a PreferDualStack Service and a dual-stack pool, in that order and
     * as fast as kubectl sends them, gives the Service what it gets when the pools are applied first.
     */
    @Test
    void theOrderOfObjectsInOneApplyDoesNotChangeWhatAServiceGets() throws Exception {
        UnaryOperator<ServiceBuilder> preferDual = b -> b.editSpec()
                .withIpFamilyPolicy("PreferDualStack")
                .withIpFamilies("IPv4", "IPv6")
                .endSpec();
        lb = ControllerHarness.started();
        lb.pool("v4", "10.5.0.200-10.5.0.210");
        lb.pool("dual", "10.6.0.10-10.6.0.20", "fd00:6::10-fd00:6::20");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().reason().contains("2 pool(s)"));
        lb.service("default", "web", preferDual);
        List<String> poolsFirst = lb.awaitIps("default", "web");
        lb.close();

        lb = ControllerHarness.started(); // running and synced, as when a user applies a file
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().ready());
        lb.pool("v4", "10.5.0.200-10.5.0.210");
        Thread.sleep(50); // kubectl's round trip to a real API server
        lb.service("default", "web", preferDual);
        Thread.sleep(50);
        lb.pool("dual", "10.6.0.10-10.6.0.20", "fd00:6::10-fd00:6::20");
        List<String> oneApply = lb.awaitIps("default", "web");
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(lb.ips("default", "web")).as("kept").isEqualTo(oneApply);
        assertThat(oneApply).isEqualTo(poolsFirst);
    }

    @Test
    void lbClassFlagServesOnlyThatClass() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.of("example.com/mine"));
        lb.startController();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service(
                "default",
                "mine",
                b -> b.editSpec().withLoadBalancerClass("example.com/mine").endSpec());
        lb.service("default", "unclassed", b -> b);
        assertThat(lb.awaitIp("mine")).isEqualTo("10.5.0.200");
        lb.service(
                "default",
                "mine-too",
                b -> b.editSpec().withLoadBalancerClass("example.com/mine").endSpec());
        assertThat(lb.awaitIp("mine-too")).isEqualTo("10.5.0.201");
        assertThat(lb.ips("default", "unclassed")).isEmpty();
    }

    @Test
    void changingTypeAwayFromLoadBalancerReleasesTheAddress() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("vip", "192.0.2.10/32");
        lb.service("web");
        lb.awaitIp("web");
        lb.service("waiting");
        lb.awaitEvent("default", "waiting", "AllocationFailed");

        lb.client
                .services()
                .inNamespace("default")
                .withName("web")
                .edit(s -> new ServiceBuilder(s)
                        .editSpec()
                        .withType("ClusterIP")
                        .endSpec()
                        .build());
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.ips("default", "web").isEmpty());
        assertThat(lb.awaitIp("waiting")).isEqualTo("192.0.2.10");
        assertThat(lb.awaitEvent("default", "web", "ClearAssignment").getMessage())
                .contains("not LoadBalancer");
    }

    @Test
    void servicesWithTheSameSharingKeyAndDistinctPortsShareOneAddress() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service(
                "default",
                "dns-tcp",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/allow-shared-ip", "dns")
                        .endMetadata()
                        .editSpec()
                        .withPorts()
                        .addNewPort()
                        .withPort(53)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec());
        lb.service(
                "default",
                "dns-udp",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/allow-shared-ip", "dns")
                        .endMetadata()
                        .editSpec()
                        .withPorts()
                        .addNewPort()
                        .withPort(53)
                        .withProtocol("UDP")
                        .endPort()
                        .endSpec());
        assertThat(lb.awaitIp("dns-tcp")).isEqualTo("10.5.0.200");
        assertThat(lb.awaitIp("dns-udp")).isEqualTo("10.5.0.200");

        // Same key but an overlapping port: it may not share, so it gets its own address.
        lb.service(
                "default",
                "dns-tcp-again",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/allow-shared-ip", "dns")
                        .endMetadata()
                        .editSpec()
                        .withPorts()
                        .addNewPort()
                        .withPort(53)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec());
        assertThat(lb.awaitIp("dns-tcp-again")).isEqualTo("10.5.0.201");
    }

    @Test
    void dualStackServiceGetsBothFamiliesFromOnePool() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("dual", "10.5.0.200-10.5.0.220", "fd00:5::200-fd00:5::220");
        lb.pool("v4only", "10.6.0.0/24");
        lb.service(
                "default",
                "both",
                b -> b.editSpec()
                        .withIpFamilyPolicy("RequireDualStack")
                        .withIpFamilies("IPv4", "IPv6")
                        .endSpec());
        assertThat(lb.awaitIps("default", "both")).containsExactly("10.5.0.200", "fd00:5::200");
        lb.service(
                "default",
                "v6",
                b -> b.editSpec()
                        .withIpFamilyPolicy("SingleStack")
                        .withIpFamilies("IPv6")
                        .endSpec());
        assertThat(lb.awaitIps("default", "v6")).containsExactly("fd00:5::201");
    }

    @Test
    void anInvalidConfigurationIsKeptOutWhileTheLastValidOneKeepsServing() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        assertThat(lb.awaitIp(seedService("before"))).isEqualTo("10.5.0.200");

        // Addresses that are not a list never reach lbk8s: the CRD's schema makes the API server refuse them.
        assertThatThrownBy(() -> lb.pool("unlisted", Map.of("addresses", "10.9.0.0/24")))
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getStatus().getMessage())
                                .contains("spec.addresses in body must be of type array"));
        lb.pool("broken", "10.9.0.0/33");
        lb.pool("reversed", "10.8.0.20-10.8.0.10");
        assertThat(lb.awaitEvent(ControllerHarness.DEFAULT_NAMESPACE, "broken", "InvalidConfiguration")
                        .getMessage())
                .contains("10.9.0.0/33");
        assertThat(lb.awaitEvent(ControllerHarness.DEFAULT_NAMESPACE, "reversed", "InvalidConfiguration")
                        .getMessage())
                .contains("reversed");
        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.metrics().contains("lbk8s_config_valid 0.0"));
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> "Invalid".equals(lb.configurationState().get("result")));
        assertThat((String) lb.configurationState().get("errorSummary"))
                .contains("IPAddressPool lbk8s-system/broken: ")
                .contains("IPAddressPool lbk8s-system/reversed");

        lb.service("after");
        assertThat(lb.awaitIp("after")).isEqualTo("10.5.0.201");
        assertThat(lb.ips("default", "before")).containsExactly("10.5.0.200");
        assertThat(lb.controller().readiness().ready()).isTrue();
        assertThat(lb.controller().readiness().reason())
                .contains("refused: IPAddressPool lbk8s-system/broken, IPAddressPool lbk8s-system/reversed");

        lb.deletePool("broken");
        lb.deletePool("reversed");
        await().atMost(ControllerHarness.PATIENCE).until(() -> lb.metrics().contains("lbk8s_config_valid 1.0"));
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> "Valid".equals(lb.configurationState().get("result")));
    }

    private String seedService(String name) {
        lb.service(name);
        return name;
    }

    @Test
    void withoutAnyValidConfigurationTheControllerIsNotReadyAndTouchesNothing() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.configMap("pools: [this is not: valid yaml");
        Service shown = lb.service("default", "preassigned", b -> b);
        lb.client
                .services()
                .inNamespace("default")
                .resource(new ServiceBuilder(shown)
                        .withNewStatus()
                        .withNewLoadBalancer()
                        .addNewIngress()
                        .withIp("10.5.0.205")
                        .endIngress()
                        .endLoadBalancer()
                        .endStatus()
                        .build())
                .updateStatus();
        lb.startController();

        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller()
                        .readiness()
                        .reason()
                        .contains("every configuration object is refused: ConfigMap lbk8s-system/lbk8s-config"));
        assertThat(lb.controller().readiness().ready()).isFalse();
        assertThat(lb.ips("default", "preassigned")).containsExactly("10.5.0.205");

        lb.configMap("pools:\n- name: default\n  addresses: [10.5.0.200-10.5.0.220]\n");
        await().atMost(ControllerHarness.PATIENCE)
                .until(() -> lb.controller().readiness().ready());
        lb.service("newcomer");
        assertThat(lb.awaitIp("newcomer")).isEqualTo("10.5.0.200");
        assertThat(lb.ips("default", "preassigned")).containsExactly("10.5.0.205");
    }

    @Test
    void aMalformedAnnotationKeepsTheCurrentAddressAndSaysWhy() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("web");
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200");
        // The pool annotation is written after the status, and the event after both: editing before it would race the
        // controller's last write (a 409 for the edit when the JVM is warm).
        lb.awaitEvent("default", "web", "IPAllocated");

        lb.client
                .services()
                .inNamespace("default")
                .withName("web")
                .edit(s -> new ServiceBuilder(s)
                        .editMetadata()
                        .addToAnnotations("metallb.io/loadBalancerIPs", "10.5.0.999")
                        .endMetadata()
                        .build());
        assertThat(lb.awaitEvent("default", "web", "AllocationFailed").getMessage())
                .isEqualTo(
                        "metallb.io/loadBalancerIPs: \"10.5.0.999\" is not an IP address; keeping its current addresses [10.5.0.200]");
        assertThat(lb.ips("default", "web")).containsExactly("10.5.0.200");
    }

    @Test
    void aHostileAnnotationValueReachesTheEventQuotedEscapedAndCut() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        // Anyone who may create a Service writes this: a forged log record, a terminal colour and 5000 more characters.
        String hostile =
                "nope\n2026-12-03T00:00:00Z level=INFO logger=Controller msg=\"configuration valid: 7 pool(s)\""
                        + "\r\u001b[31m" + "x".repeat(5000);
        lb.service(
                "default",
                "hostile",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/address-pool", hostile)
                        .endMetadata());

        String message = lb.awaitEvent("default", "hostile", "AllocationFailed", ControllerHarness.PAST_NO_POOL)
                .getMessage();
        assertThat(message)
                .startsWith("requested pool \"nope\\n2026-12-03T00:00:00Z level=INFO logger=Controller"
                        + " msg=\\\"configuration valid: 7 pool(s)\\\"\\r\\u001b[31mxxx")
                .contains("xxx\"... (")
                .endsWith(" more chars) does not exist (pools: \"default\")")
                .doesNotContain("\n")
                .doesNotContain("\r")
                .doesNotContain("\u001b");
        assertThat(message.length()).isLessThan(500);
    }

    @Test
    void openStackGuideManifestsGiveTraefikTheIngressVip() throws Exception {
        lb = new ControllerHarness("metallb-system", Optional.empty());
        lb.startController();
        lb.apply("openstack-ingress.yaml");
        lb.apply("traefik-service.yaml");
        assertThat(lb.awaitIps("ingress", "traefik")).containsExactly("192.0.2.10");
    }

    @Test
    void proxmoxGuideRangeHandsOutItsFourAddressesThenRefuses() throws Exception {
        lb = new ControllerHarness("metallb-system", Optional.empty());
        lb.startController();
        lb.apply("proxmox-ingress.yaml");
        for (int i = 0; i < 4; i++) {
            lb.service("svc-" + i);
            assertThat(lb.awaitIp("svc-" + i)).isEqualTo("203.0.113." + (75 + i));
        }
        lb.service("svc-4");
        assertThat(lb.awaitEvent("default", "svc-4", "AllocationFailed").getMessage())
                .contains("ingress");
    }

    @Test
    void homelabPoolGivesTheFirstAddressOfItsRange() throws Exception {
        lb = new ControllerHarness("metallb-system", Optional.empty());
        lb.startController();
        lb.apply("homelab-pool.yaml");
        lb.service("lb-test");
        assertThat(lb.awaitIp("lb-test")).isEqualTo("192.168.68.200");
    }

    @Test
    void requestedAddressHeldByAnotherServiceIsRefusedWithTheHolderNamed() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("holder");
        assertThat(lb.awaitIp("holder")).isEqualTo("10.5.0.200");
        lb.service(
                "default",
                "wants-it",
                b -> b.editMetadata()
                        .addToAnnotations("lbk8s.io/loadBalancerIPs", "10.5.0.200")
                        .endMetadata());
        assertThat(lb.awaitEvent("default", "wants-it", "AllocationFailed").getMessage())
                .contains("default/holder");
        lb.service(
                "default",
                "wants-free",
                b -> b.editMetadata()
                        .addToAnnotations("lbk8s.io/loadBalancerIPs", "10.5.0.210")
                        .endMetadata());
        assertThat(lb.awaitIp("wants-free")).isEqualTo("10.5.0.210");
    }

    @Test
    void metricsShowPoolSizeAndUse() throws Exception {
        lb = ControllerHarness.started();
        lb.pool("default", "10.5.0.200-10.5.0.220");
        lb.service("web");
        lb.awaitIp("web");
        System.gc(); // gauges hold their values weakly: the figures must survive a collection
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(lb.metrics())
                                .contains("lbk8s_pool_addresses{pool=\"default\"} 21.0")
                                .contains("lbk8s_pool_addresses_in_use{pool=\"default\"} 1.0")
                                .contains("lbk8s_services_assigned 1.0")
                                .contains(
                                        "lbk8s_service_address{ip=\"10.5.0.200\",pool=\"default\",service=\"default/web\"} 1.0"));
        lb.client.services().inNamespace("default").withName("web").delete();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(lb.metrics())
                        .contains("lbk8s_services_assigned 0.0")
                        .doesNotContain("lbk8s_service_address{"));
    }

    @Test
    void serviceAllocationByNamespaceLabelPicksTheReservedPool() throws Exception {
        lb = ControllerHarness.started();
        lb.client
                .namespaces()
                .resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName("team-a")
                        .addToLabels("team", "a")
                        .endMetadata()
                        .build())
                .create();
        lb.pool("general", "10.5.0.200-10.5.0.220");
        lb.pool(
                "reserved",
                Map.of(
                        "addresses",
                        List.of("10.7.0.10-10.7.0.20"),
                        "serviceAllocation",
                        Map.of(
                                "priority",
                                1,
                                "namespaceSelectors",
                                List.of(Map.of("matchLabels", Map.of("team", "a"))))));
        lb.service("team-a", "api", b -> b);
        assertThat(lb.awaitIps("team-a", "api")).containsExactly("10.7.0.10");
        lb.awaitPoolAnnotation("team-a", "api", "reserved");
        lb.service("default", "web", b -> b);
        assertThat(lb.awaitIp("web")).isEqualTo("10.5.0.200");
    }

    @Test
    void afterARestartAServiceWithAMalformedAnnotationStillHoldsTheAddressItShows() throws Exception {
        lb = new ControllerHarness(ControllerHarness.DEFAULT_NAMESPACE, Optional.empty());
        lb.pool("default", "10.5.0.200-10.5.0.220");
        Service shown = lb.service(
                "default",
                "a-broken",
                b -> b.editMetadata()
                        .addToAnnotations("metallb.io/loadBalancerIPs", "not-an-ip")
                        .endMetadata());
        lb.client
                .services()
                .inNamespace("default")
                .resource(new ServiceBuilder(shown)
                        .withNewStatus()
                        .withNewLoadBalancer()
                        .addNewIngress()
                        .withIp("10.5.0.200")
                        .endIngress()
                        .endLoadBalancer()
                        .endStatus()
                        .build())
                .updateStatus();
        lb.service("b-newcomer");
        lb.startController();

        assertThat(lb.awaitIp("b-newcomer")).isEqualTo("10.5.0.201");
        assertThat(lb.awaitEvent("default", "a-broken", "AllocationFailed").getMessage())
                .isEqualTo(
                        "metallb.io/loadBalancerIPs: \"not-an-ip\" is not an IP address; keeping its current addresses [10.5.0.200]");
        assertThat(lb.ips("default", "a-broken")).containsExactly("10.5.0.200");
    }
}

package io.lbk8s.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.service.ServiceRequests.Decision.NotServed;
import io.lbk8s.service.ServiceRequests.Decision.OtherClass;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServiceRequestsTest {

    /** A Service under test, changed by small functions so each case reads as one line. */
    record Svc(
            String type,
            String lbClass,
            Map<String, String> annotations,
            String loadBalancerIP,
            List<String> families,
            String policy,
            String trafficPolicy) {
        static Svc lb() {
            return new Svc("LoadBalancer", null, Map.of(), null, List.of("IPv4"), null, null);
        }

        Svc type(String t) {
            return new Svc(t, lbClass, annotations, loadBalancerIP, families, policy, trafficPolicy);
        }

        Svc lbClass(String c) {
            return new Svc(type, c, annotations, loadBalancerIP, families, policy, trafficPolicy);
        }

        Svc annotate(String key, String value) {
            var copy = new HashMap<>(annotations);
            copy.put(key, value);
            return new Svc(type, lbClass, copy, loadBalancerIP, families, policy, trafficPolicy);
        }

        Svc loadBalancerIP(String ip) {
            return new Svc(type, lbClass, annotations, ip, families, policy, trafficPolicy);
        }

        Svc families(String policy, String... families) {
            return new Svc(type, lbClass, annotations, loadBalancerIP, List.of(families), policy, trafficPolicy);
        }

        Svc local() {
            return new Svc(type, lbClass, annotations, loadBalancerIP, families, policy, "Local");
        }

        ServiceView view() {
            return new ServiceView(
                    new ServiceKey("default", "web"),
                    type,
                    Optional.ofNullable(lbClass),
                    annotations,
                    Map.of("app", "web"),
                    Optional.ofNullable(loadBalancerIP),
                    families,
                    Optional.ofNullable(policy),
                    List.of(new ServicePort("TCP", 80)),
                    Optional.ofNullable(trafficPolicy),
                    Map.of("app", "web"),
                    List.of());
        }
    }

    /** Services lbk8s does not serve: not a LoadBalancer (what it wrote is cleared), or of another class (left alone). */
    static Stream<Arguments> notServed() {
        return Stream.of(
                Arguments.of(
                        "ClusterIP service",
                        Svc.lb().type("ClusterIP"),
                        null,
                        new NotServed("type is ClusterIP, not LoadBalancer")),
                Arguments.of(
                        "NodePort service",
                        Svc.lb().type("NodePort"),
                        null,
                        new NotServed("type is NodePort, not LoadBalancer")),
                Arguments.of(
                        "ClusterIP service when --lb-class is set",
                        Svc.lb().type("ClusterIP"),
                        "example.com/mine",
                        new NotServed("type is ClusterIP, not LoadBalancer")),
                Arguments.of(
                        "another class",
                        Svc.lb().lbClass("example.com/other"),
                        null,
                        new OtherClass("loadBalancerClass example.com/other is not served by this controller")),
                Arguments.of(
                        "another class with MetalLB's pool annotation",
                        Svc.lb().lbClass("other.io/lb").annotate("metallb.io/ip-allocated-from-pool", "default"),
                        null,
                        new OtherClass("loadBalancerClass other.io/lb is not served by this controller")),
                Arguments.of(
                        "no class when --lb-class is set",
                        Svc.lb(),
                        "example.com/mine",
                        new OtherClass("loadBalancerClass (none) is not served by this controller")),
                Arguments.of(
                        "default class when --lb-class is set",
                        Svc.lb().lbClass("lbk8s.io/l2"),
                        "example.com/mine",
                        new OtherClass("loadBalancerClass lbk8s.io/l2 is not served by this controller")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void notServed(String name, Svc svc, String lbClass, ServiceRequests.Decision expected) {
        assertThat(ServiceRequests.decide(svc.view(), Map.of(), Optional.ofNullable(lbClass)))
                .isEqualTo(expected);
    }

    static Stream<Arguments> served() {
        return Stream.of(
                Arguments.of("no class", Svc.lb(), null),
                Arguments.of("lbk8s class", Svc.lb().lbClass("lbk8s.io/l2"), null),
                Arguments.of("empty class string", Svc.lb().lbClass(""), null),
                Arguments.of(
                        "the class given by --lb-class", Svc.lb().lbClass("example.com/mine"), "example.com/mine"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void served(String name, Svc svc, String lbClass) {
        assertThat(ServiceRequests.decide(svc.view(), Map.of(), Optional.ofNullable(lbClass)))
                .isInstanceOf(ServiceRequests.Decision.Request.class);
    }

    record Expected(Optional<String> pool, List<String> ips, Optional<String> sharingKey, List<String> warnings) {}

    static Expected expect(String pool, List<String> ips, String key, String... warnings) {
        return new Expected(Optional.ofNullable(pool), ips, Optional.ofNullable(key), List.of(warnings));
    }

    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of("nothing requested", Svc.lb(), expect(null, List.of(), null)),
                Arguments.of(
                        "lbk8s pool annotation",
                        Svc.lb().annotate("lbk8s.io/address-pool", "default"),
                        expect("default", List.of(), null)),
                Arguments.of(
                        "metallb pool annotation",
                        Svc.lb().annotate("metallb.io/address-pool", "ingress"),
                        expect("ingress", List.of(), null)),
                Arguments.of(
                        "deprecated pool annotation warns",
                        Svc.lb().annotate("metallb.universe.tf/address-pool", "old"),
                        expect(
                                "old",
                                List.of(),
                                null,
                                "annotation metallb.universe.tf/address-pool is deprecated; use metallb.io/address-pool")),
                Arguments.of(
                        "same pool under two names",
                        Svc.lb().annotate("lbk8s.io/address-pool", "a").annotate("metallb.io/address-pool", "a"),
                        expect("a", List.of(), null)),
                Arguments.of(
                        "lbk8s IP annotation",
                        Svc.lb().annotate("lbk8s.io/loadBalancerIPs", "10.5.0.210"),
                        expect(null, List.of("10.5.0.210"), null)),
                Arguments.of(
                        "metallb IPs annotation, dual-stack pair",
                        Svc.lb()
                                .families("RequireDualStack", "IPv4", "IPv6")
                                .annotate("metallb.io/loadBalancerIPs", "192.0.2.10, 2001:db8::10"),
                        expect(null, List.of("192.0.2.10", "2001:db8::10"), null)),
                Arguments.of(
                        "spec.loadBalancerIP (the traefik manifest)",
                        Svc.lb().loadBalancerIP("192.0.2.10"),
                        expect(null, List.of("192.0.2.10"), null)),
                Arguments.of(
                        "spec.loadBalancerIP agreeing with the annotation",
                        Svc.lb().loadBalancerIP("10.5.0.210").annotate("metallb.io/loadBalancerIPs", "10.5.0.210"),
                        expect(null, List.of("10.5.0.210"), null)),
                Arguments.of(
                        "deprecated IPs annotation warns",
                        Svc.lb().annotate("metallb.universe.tf/loadBalancerIPs", "10.5.0.211"),
                        expect(
                                null,
                                List.of("10.5.0.211"),
                                null,
                                "annotation metallb.universe.tf/loadBalancerIPs is deprecated; use metallb.io/loadBalancerIPs")),
                Arguments.of(
                        "sharing key",
                        Svc.lb().annotate("metallb.io/allow-shared-ip", "web"),
                        expect(null, List.of(), "web")),
                Arguments.of(
                        "deprecated sharing key warns",
                        Svc.lb().annotate("metallb.universe.tf/allow-shared-ip", "web"),
                        expect(
                                null,
                                List.of(),
                                "web",
                                "annotation metallb.universe.tf/allow-shared-ip is deprecated; use metallb.io/allow-shared-ip")),
                Arguments.of(
                        "misspelled sharing key is ignored, and said so",
                        Svc.lb().annotate("metallb.io/allow-shared", "web"),
                        expect(
                                null,
                                List.of(),
                                null,
                                "annotation metallb.io/allow-shared is not one lbk8s knows and is ignored; did you mean metallb.io/allow-shared-ip?")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void requests(String name, Svc svc, Expected expected) {
        var decision = ServiceRequests.decide(svc.view(), Map.of(), Optional.empty());
        assertThat(decision).isInstanceOf(ServiceRequests.Decision.Request.class);
        var request = (ServiceRequests.Decision.Request) decision;
        assertThat(request.request().pool()).isEqualTo(expected.pool());
        assertThat(request.request().requestedIps()).map(IpAddress::toString).isEqualTo(expected.ips());
        assertThat(request.request().sharingKey()).isEqualTo(expected.sharingKey());
        assertThat(request.warnings())
                .extracting(ServiceRequests.Warning::message)
                .isEqualTo(expected.warnings());
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of(
                        "two pools asked",
                        Svc.lb().annotate("lbk8s.io/address-pool", "a").annotate("metallb.io/address-pool", "b"),
                        "annotations ask for different address pools: lbk8s.io/address-pool=\"a\", metallb.io/address-pool=\"b\""),
                Arguments.of(
                        "empty pool annotation",
                        Svc.lb().annotate("metallb.io/address-pool", " "),
                        "annotation metallb.io/address-pool is empty"),
                Arguments.of(
                        "malformed IP",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "10.5.0.300"),
                        "metallb.io/loadBalancerIPs: \"10.5.0.300\" is not an IP address"),
                Arguments.of(
                        "host name instead of IP",
                        Svc.lb().loadBalancerIP("lb.example.com"),
                        "spec.loadBalancerIP: \"lb.example.com\" is not an IP address"),
                Arguments.of(
                        "loadBalancerIP contradicting the annotation",
                        Svc.lb().loadBalancerIP("10.5.0.210").annotate("lbk8s.io/loadBalancerIPs", "10.5.0.211"),
                        "requested addresses disagree: lbk8s.io/loadBalancerIPs=\"10.5.0.211\", spec.loadBalancerIP=\"10.5.0.210\""),
                Arguments.of(
                        "two IPv4 addresses",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "10.5.0.210,10.5.0.211"),
                        "at most one address per IP family may be requested, got 2: \"10.5.0.210,10.5.0.211\""),
                Arguments.of(
                        "three addresses",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "10.0.0.1,fd00::1,10.0.0.2"),
                        "metallb.io/loadBalancerIPs: at most two addresses (one IPv4, one IPv6) may be requested, got 3"),
                Arguments.of(
                        "same IP twice",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "10.0.0.1,10.0.0.1"),
                        "metallb.io/loadBalancerIPs: 10.0.0.1 is listed twice"),
                Arguments.of(
                        "unknown family policy",
                        Svc.lb().families("DualStackPlease", "IPv4"),
                        "spec.ipFamilyPolicy: \"DualStackPlease\" is not SingleStack, PreferDualStack or RequireDualStack"),
                Arguments.of(
                        "two sharing keys",
                        Svc.lb().annotate("metallb.io/allow-shared-ip", "a").annotate("lbk8s.io/allow-shared-ip", "b"),
                        "annotations ask for different sharing keys: lbk8s.io/allow-shared-ip=\"b\", metallb.io/allow-shared-ip=\"a\""),
                // annotation values are anyone's text: quoted and escaped, they cannot break the message or a log line
                Arguments.of(
                        "a forged log line in a pool annotation",
                        Svc.lb()
                                .annotate("metallb.io/address-pool", "a")
                                .annotate("lbk8s.io/address-pool", "a\n2026-12-03T00:00:00Z level=INFO msg=\"ok\""),
                        "annotations ask for different address pools: lbk8s.io/address-pool=\"a\\n2026-12-03T00:00:00Z level=INFO"
                                + " msg=\\\"ok\\\"\", metallb.io/address-pool=\"a\""),
                Arguments.of(
                        "terminal escapes in an address",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "\u001b[31m10.0.0.1\r"),
                        "metallb.io/loadBalancerIPs: \"\\u001b[31m10.0.0.1\" is not an IP address"),
                Arguments.of(
                        "a huge address is cut",
                        Svc.lb().annotate("metallb.io/loadBalancerIPs", "9".repeat(100_000)),
                        "metallb.io/loadBalancerIPs: \"" + "9".repeat(256)
                                + "\"... (99744 more chars) is not an IP address"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void invalid(String name, Svc svc, String message) {
        var decision = ServiceRequests.decide(svc.view(), Map.of(), Optional.empty());
        assertThat(decision).isInstanceOf(ServiceRequests.Decision.Invalid.class);
        assertThat(((ServiceRequests.Decision.Invalid) decision).message()).isEqualTo(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void families(String name, Svc svc, List<IpFamily> families, FamilyPolicy policy, boolean local) {
        var request = ((ServiceRequests.Decision.Request)
                        ServiceRequests.decide(svc.view(), Map.of(), Optional.empty()))
                .request();
        assertThat(request.families()).isEqualTo(families);
        assertThat(request.familyPolicy()).isEqualTo(policy);
        assertThat(request.localTraffic()).isEqualTo(local);
    }

    static Stream<Arguments> families() {
        return Stream.of(
                Arguments.of("defaults", Svc.lb().families(null), List.of(), FamilyPolicy.SingleStack, false),
                Arguments.of(
                        "IPv6 single",
                        Svc.lb().families("SingleStack", "IPv6"),
                        List.of(IpFamily.IPv6),
                        FamilyPolicy.SingleStack,
                        false),
                Arguments.of(
                        "prefer dual",
                        Svc.lb().families("PreferDualStack", "IPv6", "IPv4"),
                        List.of(IpFamily.IPv6, IpFamily.IPv4),
                        FamilyPolicy.PreferDualStack,
                        false),
                Arguments.of(
                        "require dual, Local",
                        Svc.lb().families("RequireDualStack", "IPv4", "IPv6").local(),
                        List.of(IpFamily.IPv4, IpFamily.IPv6),
                        FamilyPolicy.RequireDualStack,
                        true));
    }
}

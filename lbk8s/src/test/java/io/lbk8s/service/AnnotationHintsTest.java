package io.lbk8s.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.service.ServiceRequests.Warning;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AnnotationHintsTest {

    static Stream<Arguments> unknownAnnotations() {
        return Stream.of(
                Arguments.of(
                        "metallb.universe.tf/allow-shared",
                        "annotation metallb.universe.tf/allow-shared is not one lbk8s"
                                + " knows and is ignored; did you mean metallb.universe.tf/allow-shared-ip (now metallb.io/allow-shared-ip)?"),
                Arguments.of(
                        "metallb.io/allow-shared",
                        "annotation metallb.io/allow-shared is not one lbk8s knows and is"
                                + " ignored; did you mean metallb.io/allow-shared-ip?"),
                Arguments.of(
                        "metallb.io/loadBalancerIP",
                        "annotation metallb.io/loadBalancerIP is not one lbk8s knows and"
                                + " is ignored; did you mean metallb.io/loadBalancerIPs?"),
                Arguments.of(
                        "metallb.io/adress-pool",
                        "annotation metallb.io/adress-pool is not one lbk8s knows and is"
                                + " ignored; did you mean metallb.io/address-pool?"),
                Arguments.of(
                        "lbk8s.io/address-pools",
                        "annotation lbk8s.io/address-pools is not one lbk8s knows and is"
                                + " ignored; did you mean lbk8s.io/address-pool?"),
                Arguments.of(
                        "metallb.io/allow",
                        "annotation metallb.io/allow is not one lbk8s knows and is ignored;"
                                + " did you mean metallb.io/allow-shared-ip?"),
                Arguments.of(
                        "metallb.io/address-pool-name",
                        "annotation metallb.io/address-pool-name is not one lbk8s"
                                + " knows and is ignored; did you mean metallb.io/address-pool?"),
                Arguments.of(
                        "lbk8s.io/announce-interface",
                        "annotation lbk8s.io/announce-interface is not one lbk8s" + " knows and is ignored"),
                Arguments.of("metallb.io/a", "annotation metallb.io/a is not one lbk8s knows and is ignored"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void unknownAnnotations(String name, String message) {
        assertThat(AnnotationHints.unknown(Map.of(name, "x")))
                .containsExactly(new Warning(Warning.Reason.UnknownAnnotation, message));
    }

    static Stream<String> knownOrUnchecked() {
        return Stream.of(
                "lbk8s.io/address-pool",
                "lbk8s.io/loadBalancerIPs",
                "lbk8s.io/allow-shared-ip",
                "metallb.io/address-pool",
                "metallb.io/loadBalancerIPs",
                "metallb.io/allow-shared-ip",
                "metallb.universe.tf/address-pool",
                "metallb.universe.tf/loadBalancerIPs",
                "metallb.universe.tf/allow-shared-ip",
                // written by the controller, lbk8s's or MetalLB's, old and new
                "metallb.io/ip-allocated-from-pool",
                "metallb.universe.tf/ip-allocated-from-pool",
                // other tools' annotations are none of lbk8s's business
                "kubectl.kubernetes.io/last-applied-configuration",
                "external-dns.alpha.kubernetes.io/hostname",
                "example.com/metallb.io/address-pol");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void knownOrUnchecked(String name) {
        assertThat(AnnotationHints.unknown(Map.of(name, "x"))).isEmpty();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource
    void distance(String a, String b, int expected) {
        assertThat(AnnotationHints.distance(a, b)).isEqualTo(expected);
        assertThat(AnnotationHints.distance(b, a)).isEqualTo(expected);
    }

    static Stream<Arguments> distance() {
        return Stream.of(
                Arguments.of("", "", 0),
                Arguments.of("", "abc", 3),
                Arguments.of("kitten", "sitting", 3),
                Arguments.of("allow-shared", "allow-shared-ip", 3),
                Arguments.of("pool", "pool", 0),
                Arguments.of("flaw", "lawn", 2));
    }
}

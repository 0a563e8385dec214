package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.address.IpAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServiceEndpointsTest {

    static final IpAddress IP = IpAddress.parse("10.0.0.1").orElseThrow();

    /** An endpoint on {@code node} (null: none) with the conditions given as "ready=true serving=false ..." (absent: unsaid). */
    static EndpointState endpoint(String node, String conditions) {
        return new EndpointState(
                Optional.ofNullable(node),
                condition(conditions, "ready"),
                condition(conditions, "serving"),
                condition(conditions, "terminating"));
    }

    private static Optional<Boolean> condition(String conditions, String name) {
        return Stream.of(conditions.split(" "))
                .filter(c -> c.startsWith(name + "="))
                .map(c -> Boolean.valueOf(c.substring(name.length() + 1)))
                .findFirst();
    }

    static Stream<Arguments> endpoints() {
        return Stream.of(
                arguments("no conditions at all: ready, as Kubernetes reads it", "", false, true),
                arguments("ready", "ready=true", false, true),
                arguments("not ready (the Pod's readiness probe fails)", "ready=false", false, false),
                arguments("ready and serving", "ready=true serving=true terminating=false", false, true),
                arguments("not ready, not serving", "ready=false serving=false terminating=false", false, false),
                arguments(
                        "terminating but still serving: kept, as MetalLB does",
                        "ready=false serving=true terminating=true",
                        false,
                        true),
                arguments(
                        "terminating and no longer serving",
                        "ready=false serving=false terminating=true",
                        false,
                        false),
                arguments("serving said false wins over ready", "ready=true serving=false", false, false),
                arguments(
                        "publishNotReadyAddresses: ready says it, not serving", "ready=true serving=false", true, true),
                arguments("publishNotReadyAddresses, ready false", "ready=false serving=true", true, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("endpoints")
    void anEndpointCanServe(String name, String conditions, boolean publishNotReadyAddresses, boolean expected) {
        assertThat(endpoint("node-1", conditions).canServe(publishNotReadyAddresses))
                .isEqualTo(expected);
    }

    static Stream<Arguments> services() {
        EndpointState readyOn1 = endpoint("node-1", "ready=true");
        EndpointState notReadyOn2 = endpoint("node-2", "ready=false");
        EndpointState readyNowhere = endpoint(null, "ready=true");
        return Stream.of(
                arguments("no EndpointSlice", List.of(), false, Set.of(), false, Set.of()),
                arguments("only endpoints that are not ready", List.of(notReadyOn2), false, Set.of(), false, Set.of()),
                arguments(
                        "Cluster: one ready endpoint lets every node announce",
                        List.of(readyOn1, notReadyOn2),
                        true,
                        Set.of("node-1"),
                        false,
                        Set.of("node-1", "node-2", "node-3")),
                arguments(
                        "Local: only the node with the ready endpoint",
                        List.of(readyOn1, notReadyOn2),
                        true,
                        Set.of("node-1"),
                        true,
                        Set.of("node-1")),
                arguments(
                        "Cluster: a ready endpoint on no node still counts",
                        List.of(readyNowhere),
                        true,
                        Set.of(),
                        false,
                        Set.of("node-1", "node-2", "node-3")),
                arguments(
                        "Local: a ready endpoint on no node lets no node announce",
                        List.of(readyNowhere),
                        true,
                        Set.of(),
                        true,
                        Set.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void whichNodesMayAnnounce(
            String name,
            List<EndpointState> endpoints,
            boolean anyServing,
            Set<String> nodesServing,
            boolean local,
            Set<String> allowed) {
        ServiceEndpoints of = ServiceEndpoints.of(endpoints, false);
        assertThat(of).isEqualTo(new ServiceEndpoints(anyServing, nodesServing));
        assertThat(Stream.of("node-1", "node-2", "node-3").filter(n -> of.allows(n, local)))
                .containsExactlyInAnyOrderElementsOf(allowed);
        assertThat(of.whyNoNode(IP, local))
                .as("a reason exactly when no node may announce")
                .matches(r -> r.isPresent() == allowed.isEmpty()
                        && r.map(t -> t.startsWith("the Service has no ready endpoint"))
                                .orElse(true));
    }

    static Stream<Arguments> reasons() {
        return Stream.of(
                arguments(
                        false,
                        "the Service has no ready endpoint (no EndpointSlice lists a ready Pod), so no node announces"
                                + " 10.0.0.1; it is announced as soon as one is ready"),
                arguments(
                        true,
                        "the Service has no ready endpoint, and with externalTrafficPolicy: Local only a node with one"
                                + " may announce 10.0.0.1"));
    }

    @ParameterizedTest(name = "Local {0}")
    @MethodSource("reasons")
    void withoutAnyEndpointTheReasonSaysSo(boolean local, String reason) {
        assertThat(ServiceEndpoints.NONE.whyNoNode(IP, local)).hasValue(reason);
    }
}

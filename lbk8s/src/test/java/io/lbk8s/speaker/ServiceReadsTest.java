package io.lbk8s.speaker;

import static io.lbk8s.speaker.PlanFactsTest.service;
import static io.lbk8s.speaker.PlanFactsTest.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.ServiceMapping;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Services as the plan reads them, read again only for the objects a watch event named, equal after every event of
 * a sequence to the Services read whole ({@link SpeakerMapping#read}).
 */
class ServiceReadsTest {
    private static final Optional<String> CLASS = Optional.empty();

    /** An informer's cache: objects by namespace/name, and what its handler is told. */
    private static final class Store<T extends HasMetadata> {
        final Map<String, T> objects = new LinkedHashMap<>();
        int reads;

        ServiceReads.Source<T> source() {
            return new ServiceReads.Source<>(() -> List.copyOf(objects.keySet()), key -> {
                reads++;
                return objects.get(key);
            });
        }
    }

    /** One watch event: the cache changes, then the handler is told. */
    private record Event(String name, HasMetadata object, boolean deleted) {
        @Override
        public String toString() {
            return (deleted ? "delete " : "") + name;
        }
    }

    static Stream<Arguments> sequences() {
        return Stream.of(
                arguments(List.of(
                        put(service("a", "LoadBalancer", "Cluster", "10.0.0.1")),
                        put(slice("a-1", "a", "node-1", true)),
                        put(service("b", "LoadBalancer", "Local", "10.0.0.2")),
                        put(slice("b-1", "b", "node-2", true)),
                        put(slice("b-2", "b", "node-3", false)),
                        put(slice("b-2", "b", "node-3", true)),
                        delete(slice("b-1", "b", "node-2", true)),
                        put(service("a", "LoadBalancer", "Local", "10.0.0.1")),
                        delete(service("b", "LoadBalancer", "Local", "10.0.0.2")),
                        put(service("b", "LoadBalancer", "Cluster", "10.0.0.2")))),
                arguments(List.of(
                        // endpoints before their Service, a Service before its address, one of another kind
                        put(slice("c-1", "c", "node-1", true)),
                        put(service("c", "LoadBalancer", "Cluster", null)),
                        put(service("c", "LoadBalancer", "Cluster", "10.0.0.3")),
                        put(service("d", "ClusterIP", "Cluster", "10.0.0.4")),
                        put(service("d", "LoadBalancer", "Cluster", "10.0.0.4")),
                        put(slice("d-1", "d", "node-2", false)),
                        // a slice that moves to another Service
                        put(slice("d-1", "c", "node-2", true)),
                        put(service("c", "LoadBalancer", "Cluster", null)),
                        delete(slice("c-1", "c", "node-1", true)))));
    }

    @ParameterizedTest
    @MethodSource("sequences")
    void afterEachEventTheServicesReadEqualThoseReadWhole(List<Event> events) {
        Store<Service> services = new Store<>();
        Store<EndpointSlice> slices = new Store<>();
        ServiceReads reads = new ServiceReads(CLASS);
        List<String> planned = new ArrayList<>();
        for (Event event : events) {
            apply(event, services, slices);
            reads.changed(event.object());
            List<ServiceState> read = reads.read(services.source(), slices.source());
            SpeakerMapping.ServicesRead whole = SpeakerMapping.read(
                    services.objects.values(), CLASS, SpeakerMapping.endpointsByService(slices.objects.values()));
            assertThat(new HashSet<>(read))
                    .as("after %s", event)
                    .isEqualTo(new HashSet<>(whole.planned()))
                    .hasSameSizeAs(read);
            assertThat(reads.taken()).as("after %s", event).isEqualTo(whole.taken());
            read.forEach(s -> planned.add(s.key().name()));
        }
        assertThat(planned).as("the sequence plans something").isNotEmpty();
    }

    @Test
    void afterTheFirstReadOnlyTheObjectsNamedAreRead() {
        Store<Service> services = new Store<>();
        Store<EndpointSlice> slices = new Store<>();
        for (int i = 0; i < 100; i++) {
            apply(put(service("s" + i, "LoadBalancer", "Cluster", "10.0.1." + i)), services, slices);
            apply(put(slice("s" + i + "-1", "s" + i, "node-1", true)), services, slices);
        }
        ServiceReads reads = new ServiceReads(CLASS);
        assertThat(reads.read(services.source(), slices.source())).hasSize(100);
        assertThat(services.reads + slices.reads)
                .as("the first read reads everything")
                .isEqualTo(200);

        Event created = put(service("new", "LoadBalancer", "Cluster", "10.0.2.1"));
        apply(created, services, slices);
        reads.changed(created.object());
        assertThat(reads.read(services.source(), slices.source()))
                .extracting(s -> s.key().name())
                .contains("new")
                .hasSize(101);
        assertThat(services.reads + slices.reads)
                .as("then only the new Service")
                .isEqualTo(201);
    }

    private static void apply(Event event, Store<Service> services, Store<EndpointSlice> slices) {
        String key = event.object().getMetadata().getNamespace() + "/"
                + event.object().getMetadata().getName();
        switch (event.object()) {
            case Service s -> change(services.objects, key, s, event.deleted());
            case EndpointSlice s -> change(slices.objects, key, s, event.deleted());
            default -> throw new IllegalArgumentException(event.toString());
        }
    }

    private static <T> void change(Map<String, T> objects, String key, T object, boolean deleted) {
        if (deleted) {
            objects.remove(key);
        } else {
            objects.put(key, object);
        }
    }

    private static Event put(HasMetadata object) {
        return new Event(describe(object), object, false);
    }

    private static Event delete(HasMetadata object) {
        return new Event(describe(object), object, true);
    }

    private static String describe(HasMetadata object) {
        return switch (object) {
            case Service s ->
                "Service " + s.getMetadata().getName() + " " + s.getSpec().getType() + " "
                        + s.getSpec().getExternalTrafficPolicy() + " "
                        + ServiceMapping.statusIps(s);
            case EndpointSlice s ->
                "EndpointSlice " + s.getMetadata().getName() + " of "
                        + s.getMetadata().getLabels().get(ObjectFacts.SERVICE_NAME_LABEL) + " on "
                        + s.getEndpoints().getFirst().getNodeName() + " ready "
                        + s.getEndpoints().getFirst().getConditions().getReady();
            default -> object.toString();
        };
    }
}

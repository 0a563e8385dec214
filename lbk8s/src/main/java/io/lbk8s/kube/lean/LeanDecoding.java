package io.lbk8s.kube.lean;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The speaker's serialization: the objects it watches in numbers (Pods, Nodes, Services, EndpointSlices) decoded to
 * the fields it reads, the rest of each skipped as tokens.
 *
 * <p>Jackson decodes a fabric8 model class by introspecting it first: every method of the class and of each class it
 * reaches, builders and fluent interfaces included, since their methods return them. A Pod and a Node as
 * kube-apiserver serves them reach about 900 classes, which took 300 ms of a speaker's start even with the AOT cache,
 * and kept 6 MiB of introspection on its heap for the life of the process ({@code bench/}'s DecodingBenchmark).
 * These readers reach none of that.
 *
 * <p>What they return holds the fields read, nothing more: never write it back whole. The speaker patches the fields
 * it changes on its own Pod ({@link io.lbk8s.kube.OwnPod}) and writes no Service, Node or EndpointSlice; its caches of
 * Services and EndpointSlices keep the same fields these readers read ({@link io.lbk8s.kube.CompactServiceStore},
 * {@link io.lbk8s.kube.CompactEndpointSliceStore}).
 */
public final class LeanDecoding {
    private LeanDecoding() {}

    /** A serialization for a client whose Pods, Nodes, Services and EndpointSlices are read lean. */
    public static KubernetesSerialization serialization() {
        SimpleModule lean = new SimpleModule("lbk8s-lean-decoding")
                .addDeserializer(Pod.class, new PodReader())
                .addDeserializer(Node.class, new NodeReader())
                .addDeserializer(Service.class, new ServiceReader())
                .addDeserializer(EndpointSlice.class, new EndpointSliceReader());
        // fabric8's own mapper, as its default constructor builds it, with the readers
        return new KubernetesSerialization(
                JsonMapper.builderWithJackson2Defaults()
                        .addModule(new Jackson2JdkTypesModule())
                        .addModule(lean)
                        .build(),
                true);
    }
}

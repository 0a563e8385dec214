package io.lbk8s.kube;

import static io.lbk8s.kube.JsonFields.fields;
import static io.lbk8s.kube.JsonFields.list;
import static io.lbk8s.kube.JsonFields.metadata;
import static io.lbk8s.kube.JsonFields.number;
import static io.lbk8s.kube.JsonFields.skip;
import static io.lbk8s.kube.JsonFields.string;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The speaker's serialization: Pods and Nodes are decoded to the fields lbk8s reads (names, labels, annotations,
 * the Pod's node and conditions, the Node's addresses and conditions), the rest of each object skipped as tokens.
 *
 * <p>Jackson decodes a fabric8 model class by introspecting it first: every method of the class and of each class it
 * reaches, builders and fluent interfaces included, since their methods return them. A real Pod and Node reach about
 * 900 classes, which took 300 ms of a speaker's start even with the AOT cache and kept 6 MiB of introspection on its
 * heap for the life of the process ({@code bench/}'s DeployedRolesBenchmark: start to ready, RSS). These two readers
 * reach none of that.
 *
 * <p>What they return holds the fields read, nothing more: never write it back whole (the speaker patches the fields it
 * changes; {@link CompactServiceStore} says the same of Services).
 */
public final class LeanDecoding {
    private LeanDecoding() {}

    /** A serialization for a client whose Pods and Nodes are read lean. */
    public static KubernetesSerialization serialization() {
        SimpleModule lean = new SimpleModule("lbk8s-lean-decoding")
                .addDeserializer(Pod.class, new PodReader())
                .addDeserializer(Node.class, new NodeReader());
        // fabric8's own mapper (as its default constructor builds it), plus the two readers
        return new KubernetesSerialization(
                JsonMapper.builderWithJackson2Defaults()
                        .addModule(new Jackson2JdkTypesModule())
                        .addModule(lean)
                        .build(),
                true);
    }

    private static final class PodReader extends ValueDeserializer<Pod> {
        @Override
        public Pod deserialize(JsonParser parser, DeserializationContext context) {
            Pod pod = new Pod();
            pod.setSpec(new PodSpec());
            fields(parser, (name, p) -> {
                switch (name) {
                    case "apiVersion" -> pod.setApiVersion(string(p));
                    case "kind" -> pod.setKind(string(p));
                    case "metadata" -> pod.setMetadata(metadata(p));
                    case "spec" ->
                        fields(p, (field, q) -> {
                            if (field.equals("nodeName")) {
                                pod.getSpec().setNodeName(string(q));
                            } else {
                                skip(q);
                            }
                        });
                    case "status" -> pod.setStatus(podStatus(p));
                    default -> skip(p);
                }
            });
            return pod;
        }

        private static PodStatus podStatus(JsonParser parser) {
            PodStatus status = new PodStatus();
            fields(parser, (name, p) -> {
                switch (name) {
                    case "phase" -> status.setPhase(string(p));
                    case "podIP" -> status.setPodIP(string(p));
                    case "hostIP" -> status.setHostIP(string(p));
                    case "conditions" -> status.setConditions(list(p, PodReader::condition));
                    default -> skip(p);
                }
            });
            return status;
        }

        private static PodCondition condition(JsonParser parser) {
            PodCondition condition = new PodCondition();
            fields(parser, (name, p) -> {
                switch (name) {
                    case "type" -> condition.setType(string(p));
                    case "status" -> condition.setStatus(string(p));
                    case "reason" -> condition.setReason(string(p));
                    case "message" -> condition.setMessage(string(p));
                    case "lastTransitionTime" -> condition.setLastTransitionTime(string(p));
                    case "lastProbeTime" -> condition.setLastProbeTime(string(p));
                    case "observedGeneration" -> condition.setObservedGeneration(number(p));
                    default -> skip(p);
                }
            });
            return condition;
        }
    }

    private static final class NodeReader extends ValueDeserializer<Node> {
        @Override
        public Node deserialize(JsonParser parser, DeserializationContext context) {
            Node node = new Node();
            node.setSpec(new NodeSpec());
            fields(parser, (name, p) -> {
                switch (name) {
                    case "apiVersion" -> node.setApiVersion(string(p));
                    case "kind" -> node.setKind(string(p));
                    case "metadata" -> node.setMetadata(metadata(p));
                    case "status" -> node.setStatus(nodeStatus(p));
                    default -> skip(p);
                }
            });
            return node;
        }

        private static NodeStatus nodeStatus(JsonParser parser) {
            NodeStatus status = new NodeStatus();
            fields(parser, (name, p) -> {
                switch (name) {
                    case "addresses" -> status.setAddresses(list(p, NodeReader::address));
                    case "conditions" -> status.setConditions(list(p, NodeReader::condition));
                    default -> skip(p);
                }
            });
            return status;
        }

        private static NodeAddress address(JsonParser parser) {
            NodeAddress address = new NodeAddress();
            fields(parser, (name, p) -> {
                switch (name) {
                    case "type" -> address.setType(string(p));
                    case "address" -> address.setAddress(string(p));
                    default -> skip(p);
                }
            });
            return address;
        }

        private static NodeCondition condition(JsonParser parser) {
            NodeCondition condition = new NodeCondition();
            fields(parser, (name, p) -> {
                switch (name) {
                    case "type" -> condition.setType(string(p));
                    case "status" -> condition.setStatus(string(p));
                    case "reason" -> condition.setReason(string(p));
                    case "message" -> condition.setMessage(string(p));
                    default -> skip(p);
                }
            });
            return condition;
        }
    }
}

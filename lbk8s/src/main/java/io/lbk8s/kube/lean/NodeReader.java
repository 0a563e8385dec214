package io.lbk8s.kube.lean;

import static io.lbk8s.kube.lean.JsonFields.fields;
import static io.lbk8s.kube.lean.JsonFields.list;
import static io.lbk8s.kube.lean.JsonFields.object;
import static io.lbk8s.kube.lean.JsonFields.skip;
import static io.lbk8s.kube.lean.JsonFields.string;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/** A Node's identity, labels, annotations, addresses and conditions. */
final class NodeReader extends ValueDeserializer<Node> {
    @Override
    public Node deserialize(JsonParser parser, DeserializationContext context) {
        Node node = new Node();
        node.setSpec(new NodeSpec());
        return object(parser, node, (name, p) -> {
            switch (name) {
                case "status" -> node.setStatus(nodeStatus(p));
                default -> skip(p);
            }
        });
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

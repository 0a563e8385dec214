package io.lbk8s.kube.lean;

import static io.lbk8s.kube.lean.JsonFields.field;
import static io.lbk8s.kube.lean.JsonFields.fields;
import static io.lbk8s.kube.lean.JsonFields.list;
import static io.lbk8s.kube.lean.JsonFields.number;
import static io.lbk8s.kube.lean.JsonFields.object;
import static io.lbk8s.kube.lean.JsonFields.skip;
import static io.lbk8s.kube.lean.JsonFields.string;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/** A Pod's identity, labels, annotations, node, phase, addresses and conditions. */
final class PodReader extends ValueDeserializer<Pod> {
    @Override
    public Pod deserialize(JsonParser parser, DeserializationContext context) {
        Pod pod = new Pod();
        pod.setSpec(new PodSpec());
        return object(parser, pod, (name, p) -> {
            switch (name) {
                case "spec" -> field(p, "nodeName", q -> pod.getSpec().setNodeName(string(q)));
                case "status" -> pod.setStatus(podStatus(p));
                default -> skip(p);
            }
        });
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

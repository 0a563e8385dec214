package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** kube-apiserver's Node validation, for what a test sets: the name, pod CIDRs and taints. */
public final class NodeRules {

    private static final List<String> EFFECTS = List.of("NoExecute", "NoSchedule", "PreferNoSchedule");

    private NodeRules() {}

    public static List<FieldError> validate(JsonNode node) {
        List<FieldError> errors = new ArrayList<>(ObjectMetaRules.validate(node, Names.DNS1123_SUBDOMAIN));
        JsonNode spec = node.path("spec");
        JsonNode cidrs = spec.path("podCIDRs");
        for (int i = 0; i < cidrs.size(); i++) {
            String cidr = cidrs.get(i).asString("");
            if (!isCidr(cidr)) {
                errors.add(FieldError.invalid(
                        "spec.podCIDRs[" + i + "]",
                        FieldError.quote(cidr),
                        "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
            }
        }
        JsonNode taints = spec.path("taints");
        for (int i = 0; i < taints.size(); i++) {
            String at = "spec.taints[" + i + "]";
            String key = taints.get(i).path("key").asString("");
            errors.addAll(
                    key.isEmpty()
                            ? List.of(FieldError.required(at + ".key", ""))
                            : Names.qualifiedName(at + ".key", key));
            String effect = taints.get(i).path("effect").asString("");
            if (effect.isEmpty()) {
                errors.add(FieldError.required(at + ".effect", ""));
            } else if (!EFFECTS.contains(effect)) {
                errors.add(FieldError.notSupported(at + ".effect", FieldError.quote(effect), EFFECTS));
            }
        }
        return errors;
    }

    private static boolean isCidr(String value) {
        int slash = value.indexOf('/');
        if (slash < 0
                || !ServiceRules.isIp(value.substring(0, slash))
                || !value.substring(slash + 1).matches("\\d{1,3}")) {
            return false;
        }
        int bits = Integer.parseInt(value.substring(slash + 1));
        return bits <= (value.contains(":") ? 128 : 32);
    }
}

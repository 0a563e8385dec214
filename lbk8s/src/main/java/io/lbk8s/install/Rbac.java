package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import java.util.List;

/**
 * The permissions of each component: exactly the calls its code makes, which {@code RbacTest} checks by running the
 * controller and the speaker against a test API server and matching every request against these rules. Cluster-wide
 * rules are for objects in any namespace (Services, their Events); everything else is confined to the install
 * namespace by a Role.
 */
public final class Rbac {
    private Rbac() {}

    /** One rule: an API group (empty for core), resources (with "/status" for the subresource) and verbs. */
    public record Rule(String group, List<String> resources, List<String> verbs) {
        public Rule {
            resources = List.copyOf(resources);
            verbs = List.copyOf(verbs);
        }

        public boolean allows(String verb, String group, String resource) {
            return this.group.equals(group) && resources.contains(resource) && verbs.contains(verb);
        }

        PolicyRule toPolicyRule() {
            return new PolicyRuleBuilder().withApiGroups(group).withResources(resources).withVerbs(verbs).build();
        }
    }

    private static final String METALLB = "metallb.io";
    private static final List<String> INFORM = List.of("list", "watch");

    /** Every Service's address is the controller's to write; Events go to the Service's namespace. */
    public static final List<Rule> CONTROLLER_CLUSTER = List.of(
            // patch: the pool annotation; get: a read of one Service that RbacTest saw in the controller's writes
            new Rule("", List.of("services"), List.of("get", "list", "watch", "patch")),
            new Rule("", List.of("services/status"), List.of("update")),
            new Rule("", List.of("namespaces"), INFORM), // pools' serviceAllocation selects namespaces by label
            new Rule("", List.of("events"), List.of("create")));

    public static final List<Rule> CONTROLLER_NAMESPACE = List.of(
            new Rule("", List.of("configmaps"), INFORM),
            new Rule(METALLB, List.of("ipaddresspools", "l2advertisements"), INFORM),
            new Rule(METALLB, List.of("configurationstates"), List.of("get", "create")),
            new Rule(METALLB, List.of("configurationstates/status"), List.of("update")));

    /** The speaker reads who may announce (Nodes, EndpointSlices) and what (Services); it writes only Events there. */
    public static final List<Rule> SPEAKER_CLUSTER = List.of(
            new Rule("", List.of("nodes"), INFORM),
            new Rule("", List.of("services"), INFORM),
            new Rule("discovery.k8s.io", List.of("endpointslices"), INFORM),
            new Rule("", List.of("events"), List.of("create")));

    public static final List<Rule> SPEAKER_NAMESPACE = List.of(
            new Rule("", List.of("pods"), List.of("list", "watch", "get")), // get: its own Pod, at shutdown
            new Rule("", List.of("pods/status"), List.of("update")), // marks its own Pod not ready at shutdown
            new Rule("", List.of("configmaps"), INFORM),
            new Rule(METALLB, List.of("ipaddresspools", "l2advertisements"), INFORM),
            new Rule(METALLB, List.of("servicel2statuses"), List.of("list", "get", "create", "delete")),
            new Rule(METALLB, List.of("servicel2statuses/status"), List.of("update")));

    static List<PolicyRule> policyRules(List<Rule> rules) {
        return rules.stream().map(Rule::toPolicyRule).toList();
    }
}

package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.ConfigurationStates;
import java.util.List;

/**
 * The permissions of each component: exactly the calls its code makes, which {@code RbacTest} checks by running the
 * controller and the speaker against a test API server and matching every request against these rules. Cluster-wide
 * rules are for objects in any namespace (Services, their Events, configuration in the wrong place); everything else
 * is confined to the install namespace by a Role.
 */
public final class Rbac {
    private Rbac() {}

    /**
     * One rule: an API group (empty for core), resources (with "/status" for the subresource), verbs, and the names
     * of the objects it is confined to (empty: any). Kubernetes matches a name against a request that names one
     * object: get, update, delete by path, and list and watch with {@code fieldSelector=metadata.name=NAME}; never
     * create, which is why a create rule has no names.
     */
    public record Rule(String group, List<String> resources, List<String> verbs, List<String> resourceNames) {
        public Rule {
            resources = List.copyOf(resources);
            verbs = List.copyOf(verbs);
            resourceNames = List.copyOf(resourceNames);
        }

        public Rule(String group, List<String> resources, List<String> verbs) {
            this(group, resources, verbs, List.of());
        }

        /** @param name the one object the request names, or null (a create, a list or watch of all) */
        public boolean allows(String verb, String group, String resource, String name) {
            return this.group.equals(group)
                    && resources.contains(resource)
                    && verbs.contains(verb)
                    && (resourceNames.isEmpty() || (name != null && resourceNames.contains(name)));
        }

        PolicyRule toPolicyRule() {
            return new PolicyRuleBuilder()
                    .withApiGroups(group)
                    .withResources(resources)
                    .withResourceNames(resourceNames)
                    .withVerbs(verbs)
                    .build();
        }
    }

    private static final String METALLB = "metallb.io";
    private static final String LBK8S = "lbk8s.io";
    private static final String COORDINATION = "coordination.k8s.io";
    private static final List<String> INFORM = List.of("list", "watch");
    /** patch: a repeated Event's count and last time (EventRecorder). */
    private static final List<String> EVENTS = List.of("create", "patch");
    /** MetalLB's BGP configuration kinds, read by both roles in the install namespace. */
    private static final List<String> BGP_CONFIG =
            List.of("bgppeers", "bgpadvertisements", "communities", "bfdprofiles");

    /** Every Service's address is the controller's to write; Events go to the Service's namespace. */
    public static final List<Rule> CONTROLLER_CLUSTER = List.of(
            // get: a Service read live where the cache may be behind (a claim's holder, a write that conflicted);
            // patch: the pool annotation
            new Rule("", List.of("services"), List.of("get", "list", "watch", "patch")),
            new Rule("", List.of("services/status"), List.of("patch")), // the ingress only: ServiceStatusPatch
            new Rule("", List.of("namespaces"), INFORM), // pools' serviceAllocation selects namespaces by label
            new Rule("", List.of("events"), EVENTS),
            // configuration it does not read, to tell a Service without a pool where its pools are, and a BGP object
            // that it is not read: MetalLB's resources in other namespaces, and its legacy ConfigMap, which is read by
            // name only
            new Rule(
                    METALLB,
                    List.of(
                            "ipaddresspools",
                            "l2advertisements",
                            "bgppeers",
                            "bgpadvertisements",
                            "communities",
                            "bfdprofiles"),
                    INFORM),
            new Rule("", List.of("configmaps"), INFORM, List.of(MisplacedConfig.LEGACY_CONFIG_MAP_NAME)),
            // an IPAddressClaim for every address before it appears in a Service's status (cluster-scoped: named
            // after the address, so that the API server refuses a second claim on it); released with the Service
            new Rule(LBK8S, List.of("ipaddressclaims"), List.of("get", "list", "create", "update", "delete")),
            // the speakers' AddressConflicts: no conflicted address goes to a Service
            new Rule(LBK8S, List.of("addressconflicts"), INFORM),
            // addresses no Service may get: the Nodes' own, and the API server's (EndpointSlices of default/kubernetes)
            new Rule("", List.of("nodes"), INFORM),
            new Rule("discovery.k8s.io", List.of("endpointslices"), INFORM));

    public static final List<Rule> CONTROLLER_NAMESPACE = List.of(
            // the leader election's Lease, read and renewed by name only; create cannot be confined to a name
            new Rule(COORDINATION, List.of("leases"), List.of("get", "update"), List.of(ClusterNames.CONTROLLER_LEASE)),
            new Rule(COORDINATION, List.of("leases"), List.of("create")),
            new Rule("", List.of("configmaps"), INFORM),
            new Rule(METALLB, List.of("ipaddresspools", "l2advertisements"), INFORM),
            new Rule(METALLB, BGP_CONFIG, INFORM), // validated like the pools, problems reported on them
            new Rule(METALLB, List.of("configurationstates"), List.of("get", "create")),
            new Rule(METALLB, List.of("configurationstates/status"), List.of("patch")),
            // the speakers' Pods, whose annotation says their node's subnets and gateways: never a Service's address
            new Rule("", List.of("pods"), INFORM));

    /** The speaker reads who may announce (Nodes, EndpointSlices) and what (Services); it writes only Events there. */
    public static final List<Rule> SPEAKER_CLUSTER = List.of(
            new Rule("", List.of("nodes"), INFORM),
            new Rule("", List.of("services"), INFORM),
            new Rule("discovery.k8s.io", List.of("endpointslices"), INFORM),
            new Rule("", List.of("events"), EVENTS),
            // another host on a pool address: reported (and refreshed, then deleted) by the speaker that saw it
            new Rule(
                    LBK8S, List.of("addressconflicts"), List.of("get", "list", "watch", "create", "update", "delete")));

    public static final List<Rule> SPEAKER_NAMESPACE = List.of(
            new Rule("", List.of("pods"), List.of("list", "watch")),
            // patch: its own Pod's annotation with what its failure detector hears, for lbk8s status
            new Rule("", List.of("pods"), List.of("patch")),
            new Rule("", List.of("pods/status"), List.of("patch")), // marks its own Pod not ready at shutdown
            new Rule("", List.of("configmaps"), INFORM),
            new Rule(METALLB, List.of("ipaddresspools", "l2advertisements"), INFORM),
            new Rule(METALLB, BGP_CONFIG, INFORM),
            // at start, the configuration objects the controller uses, so a refused edit is judged alike
            new Rule(METALLB, List.of("configurationstates"), List.of("get"), List.of(ConfigurationStates.CONTROLLER)),
            new Rule(METALLB, List.of("servicel2statuses"), List.of("list", "create", "delete")),
            new Rule(METALLB, List.of("servicel2statuses/status"), List.of("patch")),
            // BGP mode: each node's sessions and the Services it advertises, MetalLB's status kinds
            new Rule(METALLB, List.of("servicebgpstatuses", "bgpsessionstates"), List.of("list", "create", "delete")),
            new Rule(METALLB, List.of("servicebgpstatuses/status", "bgpsessionstates/status"), List.of("patch")),
            // Secrets of the install namespace, each watched by name (for rotation): the failure detector's key, and
            // the Secret a BGPPeer names in passwordSecret, which only the user knows (MetalLB's speaker may read the
            // Secrets of its namespace too). The key Secret is created by the first speaker that finds it missing
            // (kubectl apply of deploy/lbk8s.yaml makes none).
            new Rule("", List.of("secrets"), INFORM),
            new Rule("", List.of("secrets"), List.of("create")));

    static List<PolicyRule> policyRules(List<Rule> rules) {
        return rules.stream().map(Rule::toPolicyRule).toList();
    }
}

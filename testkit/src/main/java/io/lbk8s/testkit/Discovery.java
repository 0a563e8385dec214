package io.lbk8s.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The discovery documents of a small, realistic API server: {@code /version}, {@code /api},
 * {@code /api/v1}, {@code /apis} and {@code /apis/<group>/<version>}, for a fixed set of built-in
 * resources plus the resources of the CustomResourceDefinitions currently stored.
 */
public final class Discovery {

    /** One resource (or subresource, e.g. {@code services/status}) of a group version. */
    public record Resource(
            String group,
            String version,
            String name,
            String singularName,
            String kind,
            boolean namespaced,
            List<String> verbs,
            List<String> shortNames,
            List<String> categories) {

        public boolean isSubresource() {
            return name.contains("/");
        }

        public String plural() {
            int slash = name.indexOf('/');
            return slash < 0 ? name : name.substring(0, slash);
        }

        public String groupVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }

    static final List<String> ALL =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    static final List<String> STATUS_VERBS = List.of("get", "patch", "update");

    static final String GIT_VERSION = "v1.33.0";

    private static final List<Resource> BUILT_IN = builtIn();

    private static List<Resource> builtIn() {
        List<Resource> r = new ArrayList<>();
        // core/v1
        r.add(res("", "v1", "bindings", "binding", "Binding", true, List.of("create"), List.of()));
        r.add(res("", "v1", "configmaps", "configmap", "ConfigMap", true, ALL, List.of("cm")));
        r.add(res("", "v1", "endpoints", "endpoints", "Endpoints", true, ALL, List.of("ep")));
        r.add(res("", "v1", "events", "event", "Event", true, ALL, List.of("ev")));
        r.add(res(
                "",
                "v1",
                "namespaces",
                "namespace",
                "Namespace",
                false,
                List.of("create", "delete", "get", "list", "patch", "update", "watch"),
                List.of("ns")));
        r.add(res("", "v1", "namespaces/status", "", "Namespace", false, STATUS_VERBS, List.of()));
        r.add(res("", "v1", "nodes", "node", "Node", false, ALL, List.of("no")));
        r.add(res("", "v1", "nodes/status", "", "Node", false, STATUS_VERBS, List.of()));
        r.add(res("", "v1", "pods", "pod", "Pod", true, ALL, List.of("po")));
        r.add(res("", "v1", "pods/status", "", "Pod", true, STATUS_VERBS, List.of()));
        r.add(res("", "v1", "secrets", "secret", "Secret", true, ALL, List.of()));
        r.add(res("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, ALL, List.of("sa")));
        r.add(res("", "v1", "services", "service", "Service", true, ALL, List.of("svc")));
        r.add(res("", "v1", "services/status", "", "Service", true, STATUS_VERBS, List.of()));
        // apps/v1
        for (String[] k : new String[][] {
            {"deployments", "deployment", "Deployment", "deploy"},
            {"daemonsets", "daemonset", "DaemonSet", "ds"},
            {"statefulsets", "statefulset", "StatefulSet", "sts"},
            {"replicasets", "replicaset", "ReplicaSet", "rs"}
        }) {
            r.add(res("apps", "v1", k[0], k[1], k[2], true, ALL, List.of(k[3])));
            r.add(res("apps", "v1", k[0] + "/status", "", k[2], true, STATUS_VERBS, List.of()));
        }
        r.add(res(
                "apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", true, ALL, List.of()));
        r.add(res("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", true, ALL, List.of()));
        r.add(res(
                "policy",
                "v1",
                "poddisruptionbudgets",
                "poddisruptionbudget",
                "PodDisruptionBudget",
                true,
                ALL,
                List.of("pdb")));
        r.add(res(
                "policy",
                "v1",
                "poddisruptionbudgets/status",
                "",
                "PodDisruptionBudget",
                true,
                STATUS_VERBS,
                List.of()));
        r.add(res("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, ALL, List.of()));
        r.add(res("events.k8s.io", "v1", "events", "event", "Event", true, ALL, List.of("ev")));
        r.add(res(
                "apiextensions.k8s.io",
                "v1",
                "customresourcedefinitions",
                "customresourcedefinition",
                "CustomResourceDefinition",
                false,
                ALL,
                List.of("crd", "crds")));
        r.add(res(
                "apiextensions.k8s.io",
                "v1",
                "customresourcedefinitions/status",
                "",
                "CustomResourceDefinition",
                false,
                STATUS_VERBS,
                List.of()));
        String rbac = "rbac.authorization.k8s.io";
        r.add(res(
                rbac, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, ALL, List.of()));
        r.add(res(rbac, "v1", "clusterroles", "clusterrole", "ClusterRole", false, ALL, List.of()));
        r.add(res(rbac, "v1", "rolebindings", "rolebinding", "RoleBinding", true, ALL, List.of()));
        r.add(res(rbac, "v1", "roles", "role", "Role", true, ALL, List.of()));
        return List.copyOf(r);
    }

    private static Resource res(
            String group,
            String version,
            String name,
            String singular,
            String kind,
            boolean namespaced,
            List<String> verbs,
            List<String> shortNames) {
        return new Resource(group, version, name, singular, kind, namespaced, verbs, shortNames, List.of());
    }

    /** Built-in resources with a status subresource, by "group/plural" ("" group for core). */
    public static boolean builtInHasStatus(String group, String plural) {
        return BUILT_IN.stream()
                        .anyMatch(r -> r.group().equals(group) && r.name().equals(plural + "/status"))
                || switch (group + "/" + plural) {
                    case "/persistentvolumes",
                            "/persistentvolumeclaims",
                            "/replicationcontrollers",
                            "/resourcequotas",
                            "batch/jobs",
                            "batch/cronjobs",
                            "networking.k8s.io/ingresses",
                            "policy/poddisruptionbudgets",
                            "autoscaling/horizontalpodautoscalers",
                            "certificates.k8s.io/certificatesigningrequests" -> true;
                    default -> false;
                };
    }

    /** The kind served for a plural, if known (built-in only). */
    public static Optional<String> builtInKind(String group, String plural) {
        return BUILT_IN.stream()
                .filter(r -> r.group().equals(group) && r.name().equals(plural))
                .map(Resource::kind)
                .findFirst();
    }

    private final List<Resource> resources;

    private Discovery(List<Resource> resources) {
        this.resources = resources;
    }

    /** Discovery of the built-in resources plus those of the given stored CRD objects. */
    public static Discovery of(List<JsonNode> customResourceDefinitions) {
        List<Resource> all = new ArrayList<>(BUILT_IN);
        for (JsonNode crd : customResourceDefinitions) {
            all.addAll(fromCrd(crd));
        }
        return new Discovery(List.copyOf(all));
    }

    public List<Resource> resources() {
        return resources;
    }

    static List<Resource> fromCrd(JsonNode crd) {
        JsonNode spec = crd.path("spec");
        String group = spec.path("group").asString("");
        JsonNode names = spec.path("names");
        String plural = names.path("plural").asString("");
        if (group.isEmpty() || plural.isEmpty()) {
            return List.of();
        }
        String kind = names.path("kind").asString("");
        String singular = names.path("singular").asString(kind.toLowerCase(java.util.Locale.ROOT));
        boolean namespaced = !"Cluster".equals(spec.path("scope").asString("Namespaced"));
        List<String> shortNames = strings(names.path("shortNames"));
        List<String> categories = strings(names.path("categories"));
        List<Resource> result = new ArrayList<>();
        for (JsonNode v : spec.path("versions").values()) {
            if (!v.path("served").asBoolean(true)) {
                continue;
            }
            String version = v.path("name").asString("");
            result.add(new Resource(group, version, plural, singular, kind, namespaced, ALL, shortNames, categories));
            JsonNode sub = v.path("subresources");
            if (sub.has("status")) {
                result.add(new Resource(
                        group, version, plural + "/status", "", kind, namespaced, STATUS_VERBS, List.of(), List.of()));
            }
            if (sub.has("scale")) {
                result.add(new Resource(
                        group,
                        version,
                        plural + "/scale",
                        "",
                        "Scale",
                        namespaced,
                        STATUS_VERBS,
                        List.of(),
                        List.of()));
            }
        }
        return result;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.values().forEach(n -> out.add(n.asString()));
        return out;
    }

    /** Whether a CRD of group/plural with a status subresource is known. */
    public boolean hasStatusSubresource(String group, String plural) {
        return builtInHasStatus(group, plural)
                || resources.stream()
                        .anyMatch(r -> r.group().equals(group) && r.name().equals(plural + "/status"));
    }

    /** The kind for group/plural, from built-ins or CRDs. */
    public Optional<String> kind(String group, String plural) {
        return resources.stream()
                .filter(r -> r.group().equals(group) && r.name().equals(plural))
                .map(Resource::kind)
                .findFirst();
    }

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    public static ObjectNode version() {
        ObjectNode v = F.objectNode();
        v.put("major", "1");
        v.put("minor", "33");
        v.put("gitVersion", GIT_VERSION);
        v.put("gitCommit", "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828");
        v.put("gitTreeState", "clean");
        v.put("buildDate", "2025-04-23T13:07:52Z");
        v.put("goVersion", "go1.24.2");
        v.put("compiler", "gc");
        v.put("platform", "linux/amd64");
        return v;
    }

    public static ObjectNode apiVersions(String serverAddress) {
        ObjectNode v = F.objectNode();
        v.put("kind", "APIVersions");
        v.putArray("versions").add("v1");
        ObjectNode cidr = v.putArray("serverAddressByClientCIDRs").addObject();
        cidr.put("clientCIDR", "0.0.0.0/0");
        cidr.put("serverAddress", serverAddress);
        return v;
    }

    /** {@code /apis}: every non-core group, versions in declaration order (first = preferred). */
    public ObjectNode apiGroupList() {
        ObjectNode list = F.objectNode();
        list.put("kind", "APIGroupList");
        list.put("apiVersion", "v1");
        ArrayNode groups = list.putArray("groups");
        for (Map.Entry<String, List<String>> e : groupVersions().entrySet()) {
            groups.add(apiGroup(e.getKey(), e.getValue()));
        }
        return list;
    }

    /** {@code /apis/<group>}, or empty if the group is unknown. */
    public Optional<ObjectNode> apiGroup(String group) {
        List<String> versions = groupVersions().get(group);
        if (versions == null) {
            return Optional.empty();
        }
        ObjectNode g = apiGroup(group, versions);
        g.put("kind", "APIGroup");
        g.put("apiVersion", "v1");
        return Optional.of(g);
    }

    private static ObjectNode apiGroup(String group, List<String> versions) {
        ObjectNode g = F.objectNode();
        g.put("name", group);
        ArrayNode vs = g.putArray("versions");
        for (String version : versions) {
            ObjectNode gv = vs.addObject();
            gv.put("groupVersion", group + "/" + version);
            gv.put("version", version);
        }
        ObjectNode preferred = g.putObject("preferredVersion");
        preferred.put("groupVersion", group + "/" + versions.getFirst());
        preferred.put("version", versions.getFirst());
        return g;
    }

    private Map<String, List<String>> groupVersions() {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        for (Resource r : resources) {
            if (r.group().isEmpty()) {
                continue;
            }
            List<String> versions = groups.computeIfAbsent(r.group(), g -> new ArrayList<>());
            if (!versions.contains(r.version())) {
                versions.add(r.version());
            }
        }
        return groups;
    }

    /** {@code /api/v1} or {@code /apis/<group>/<version>}, or empty if unknown. */
    public Optional<ObjectNode> apiResourceList(String group, String version) {
        List<Resource> matching = resources.stream()
                .filter(r -> r.group().equals(group) && r.version().equals(version))
                .toList();
        if (matching.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode list = F.objectNode();
        list.put("kind", "APIResourceList");
        list.put("apiVersion", "v1");
        list.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        ArrayNode items = list.putArray("resources");
        for (Resource r : matching) {
            ObjectNode n = items.addObject();
            n.put("name", r.name());
            n.put("singularName", r.singularName());
            n.put("namespaced", r.namespaced());
            n.put("kind", r.kind());
            ArrayNode verbs = n.putArray("verbs");
            r.verbs().forEach(verbs::add);
            if (!r.shortNames().isEmpty()) {
                ArrayNode sn = n.putArray("shortNames");
                r.shortNames().forEach(sn::add);
            }
            if (!r.categories().isEmpty()) {
                ArrayNode c = n.putArray("categories");
                r.categories().forEach(c::add);
            }
        }
        return Optional.of(list);
    }

    /**
     * {@code /openapi/v3}: the root index. The per group-version documents only declare, for each kind,
     * a PATCH operation that accepts the {@code fieldValidation} query parameter; that is what kubectl
     * checks before it leaves validation to the server (which, here, validates nothing).
     */
    public ObjectNode openApiV3Root() {
        ObjectNode root = F.objectNode();
        ObjectNode paths = root.putObject("paths");
        for (String gv : groupVersionPaths()) {
            paths.putObject(gv)
                    .put(
                            "serverRelativeURL",
                            "/openapi/v3/" + gv + "?hash="
                                    + Integer.toHexString(gv.hashCode()).toUpperCase(java.util.Locale.ROOT));
        }
        return root;
    }

    private List<String> groupVersionPaths() {
        List<String> out = new ArrayList<>();
        for (Resource r : resources) {
            String gv = r.group().isEmpty() ? "api/" + r.version() : "apis/" + r.group() + "/" + r.version();
            if (!out.contains(gv)) {
                out.add(gv);
            }
        }
        return out;
    }

    /** {@code /openapi/v3/api/v1} or {@code /openapi/v3/apis/<group>/<version>}, or empty if unknown. */
    public Optional<ObjectNode> openApiV3(String group, String version) {
        List<Resource> matching = resources.stream()
                .filter(r -> r.group().equals(group) && r.version().equals(version) && !r.isSubresource())
                .toList();
        if (matching.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode doc = F.objectNode();
        doc.put("openapi", "3.0.0");
        ObjectNode info = doc.putObject("info");
        info.put("title", "Kubernetes");
        info.put("version", GIT_VERSION);
        ObjectNode paths = doc.putObject("paths");
        String prefix = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
        for (Resource r : matching) {
            String path = prefix + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.name() + "/{name}";
            ObjectNode patch = paths.putObject(path).putObject("patch");
            patch.put("operationId", "patch" + r.kind());
            ObjectNode gvk = patch.putObject("x-kubernetes-group-version-kind");
            gvk.put("group", group);
            gvk.put("version", version);
            gvk.put("kind", r.kind());
            patch.put("x-kubernetes-action", "patch");
            ArrayNode params = patch.putArray("parameters");
            for (String q : List.of("dryRun", "fieldManager", "fieldValidation", "force")) {
                ObjectNode p = params.addObject();
                p.put("name", q);
                p.put("in", "query");
                p.putObject("schema").put("type", q.equals("force") ? "boolean" : "string");
            }
            patch.putObject("responses").putObject("200").put("description", "OK");
        }
        return Optional.of(doc);
    }
}

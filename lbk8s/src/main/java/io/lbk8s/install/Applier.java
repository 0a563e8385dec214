package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.kube.ConfigResources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Create-or-update without server-side apply (which the test API server lacks): an object that already holds every
 * field we set, with the same values, is left alone, so a second install writes nothing. Fields the API server added
 * (defaults, status) do not count as differences.
 */
public final class Applier {

    public enum Action {
        created, configured, unchanged,
        /** an IPAddressPool or L2Advertisement of the same name that install did not make: the user's, left alone */
        kept
    }

    public record Result(String object, Action action) {
        @Override
        public String toString() {
            return object + " " + (action == Action.kept ? "kept (not made by lbk8s install)" : action.name());
        }
    }

    private final KubernetesClient client;

    public Applier(KubernetesClient client) {
        this.client = client;
    }

    public Result apply(HasMetadata desired) {
        Resource<? extends HasMetadata> resource = resource(client, desired);
        HasMetadata existing = resource.get();
        String name = Objects.displayName(desired);
        if (existing == null) {
            resource.create();
            return new Result(name, Action.created);
        }
        if (desired instanceof GenericKubernetesResource && !Objects.managedByInstall(existing)) {
            return new Result(name, Action.kept);
        }
        if (contains(tree(existing), comparable(desired))) {
            return new Result(name, Action.unchanged);
        }
        HasMetadata update = ManifestOutput.SERIALIZATION.clone(desired);
        update.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
        update.getMetadata().setLabels(merged(existing.getMetadata().getLabels(), desired.getMetadata().getLabels()));
        update.getMetadata().setAnnotations(merged(existing.getMetadata().getAnnotations(), desired.getMetadata().getAnnotations()));
        resource(client, update).update();
        return new Result(name, Action.configured);
    }

    @SuppressWarnings("unchecked")
    static Resource<? extends HasMetadata> resource(KubernetesClient client, HasMetadata object) {
        if (object instanceof GenericKubernetesResource generic) {
            ResourceDefinitionContext context = Objects.context(generic.getKind());
            return client.genericKubernetesResources(context).inNamespace(generic.getMetadata().getNamespace()).resource(generic);
        }
        return (Resource<? extends HasMetadata>) (Resource<?>) client.resource(object);
    }

    /** What we set, minus the metadata the API server owns. */
    private static Map<String, Object> comparable(HasMetadata desired) {
        Map<String, Object> tree = tree(desired);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("labels", desired.getMetadata().getLabels());
        if (desired.getMetadata().getAnnotations() != null) {
            meta.put("annotations", desired.getMetadata().getAnnotations());
        }
        tree.put("metadata", meta);
        tree.remove("status");
        return tree;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> tree(HasMetadata object) {
        return ManifestOutput.SERIALIZATION.convertValue(object, LinkedHashMap.class);
    }

    /** Whether {@code actual} holds everything in {@code wanted}: maps by key, lists element by element. */
    static boolean contains(Object actual, Object wanted) {
        return switch (wanted) {
            case null -> true;
            // fabric8 models hold empty maps and lists where the API server stores nothing
            case Map<?, ?> w when w.isEmpty() && actual == null -> true;
            case List<?> w when w.isEmpty() && actual == null -> true;
            case Map<?, ?> w -> actual instanceof Map<?, ?> a
                    && w.entrySet().stream().allMatch(e -> e.getValue() == null || contains(a.get(e.getKey()), e.getValue()));
            case List<?> w -> actual instanceof List<?> a && a.size() == w.size()
                    && java.util.stream.IntStream.range(0, w.size()).allMatch(i -> contains(a.get(i), w.get(i)));
            case Number w -> actual instanceof Number a && a.toString().equals(w.toString());
            default -> wanted.equals(actual);
        };
    }

    private static Map<String, String> merged(Map<String, String> existing, Map<String, String> desired) {
        if (existing == null && desired == null) {
            return null;
        }
        Map<String, String> merged = new LinkedHashMap<>();
        if (existing != null) {
            merged.putAll(existing);
        }
        if (desired != null) {
            merged.putAll(desired);
        }
        return merged;
    }

    /** Names and kinds of installed objects. */
    static final class Objects {
        private Objects() {}

        static boolean managedByInstall(HasMetadata object) {
            var labels = object.getMetadata().getLabels();
            return labels != null && Manifests.MANAGED_BY.equals(labels.get(Manifests.MANAGED_BY_LABEL));
        }

        /** kubectl's {@code kind.group/name}, e.g. {@code deployment.apps/lbk8s-controller}. */
        static String displayName(HasMetadata object) {
            String apiVersion = object.getApiVersion();
            String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
            return object.getKind().toLowerCase() + (group.isEmpty() ? "" : "." + group) + "/" + object.getMetadata().getName();
        }

        static ResourceDefinitionContext context(String kind) {
            return switch (kind) {
                case "IPAddressPool" -> ConfigResources.IP_ADDRESS_POOLS;
                case "L2Advertisement" -> ConfigResources.L2_ADVERTISEMENTS;
                default -> throw new IllegalArgumentException("no resource known for kind " + kind);
            };
        }
    }
}

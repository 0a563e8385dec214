package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
        created,
        configured,
        unchanged,
        /**
         * an object of the same name that install did not make (no managed-by label): not labelled, not deleted by
         * uninstall, and changed only where lbk8s cannot run otherwise (a namespace's missing pod-security labels)
         */
        kept,
        /** install's own object that it never rewrites once made (the speakers' key Secret); printed "kept" too */
        keptOwn
    }

    /**
     * @param note  for a kept object, what install still changed in it or why it may not do (empty: untouched)
     */
    public record Result(String object, Action action, String note) {
        public Result(String object, Action action) {
            this(object, action, "");
        }

        /** Whether install wrote to the cluster for this object. */
        public boolean wrote() {
            return action == Action.created
                    || action == Action.configured
                    || (action == Action.kept && note.startsWith(ADDED));
        }

        @Override
        public String toString() {
            return object + " "
                    + switch (action) {
                        case kept -> "kept (not made by lbk8s install" + (note.isEmpty() ? "" : "; " + note) + ")";
                        case keptOwn -> "kept" + (note.isEmpty() ? "" : " (" + note + ")");
                        default -> action.name();
                    };
        }
    }

    private static final String ADDED = "added ";
    private static final String POD_SECURITY = "pod-security.kubernetes.io/";

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
        if (!Objects.managedByInstall(existing)) {
            // never mark as ours what we did not make: uninstall would delete it (a CRD: with every object of its kind)
            return keep(desired, existing, name);
        }
        if (contains(tree(existing), comparable(desired))) {
            return new Result(name, Action.unchanged);
        }
        HasMetadata update = ManifestOutput.SERIALIZATION.clone(desired);
        update.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
        update.getMetadata()
                .setLabels(merged(
                        existing.getMetadata().getLabels(),
                        desired.getMetadata().getLabels()));
        update.getMetadata()
                .setAnnotations(merged(
                        existing.getMetadata().getAnnotations(),
                        desired.getMetadata().getAnnotations()));
        resource(client, update).update();
        return new Result(name, Action.configured);
    }

    /**
     * Creates {@code desired} when nothing of its name exists, and otherwise leaves what exists as it is, install's own
     * included: for content made once and kept, such as the speakers' key Secret (a new key on every run would set
     * the speakers apart until each had read it).
     *
     * @param whyKept what the "kept" line says about an existing object of install's
     */
    public Result createIfAbsent(HasMetadata desired, String whyKept) {
        Resource<? extends HasMetadata> resource = resource(client, desired);
        String name = Objects.displayName(desired);
        HasMetadata existing = resource.get();
        if (existing == null) {
            try {
                resource.create();
                return new Result(name, Action.created);
            } catch (KubernetesClientException e) {
                existing = e.getCode() == 409 ? resource.get() : null; // made meanwhile (by a speaker that found none)
                if (existing == null) {
                    throw e;
                }
            }
        }
        return Objects.managedByInstall(existing)
                ? new Result(name, Action.keptOwn, whyKept)
                : keep(desired, existing, name);
    }

    /** An object of the same name that install did not make: left as it is, but for what lbk8s cannot run without. */
    private Result keep(HasMetadata desired, HasMetadata existing, String name) {
        return switch (desired) {
            case Namespace ns -> keepNamespace(ns, (Namespace) existing, name);
            case CustomResourceDefinition crd -> {
                List<String> missing = servedVersions(crd).stream()
                        .filter(v -> !servedVersions((CustomResourceDefinition) existing)
                                .contains(v))
                        .toList();
                if (!missing.isEmpty()) {
                    throw new InstallProblem(
                            name + " exists and was not made by lbk8s install, and does not serve "
                                    + String.join(
                                            ", ",
                                            missing.stream()
                                                    .map(v -> crd.getSpec().getGroup() + "/" + v)
                                                    .toList())
                                    + ", which lbk8s needs: upgrade it (for MetalLB's, to MetalLB 0.13 or later) and run install again");
                }
                yield new Result(name, Action.kept); // same group, kind and versions: MetalLB's schema is compatible
            }
            default -> new Result(name, Action.kept);
        };
    }

    /** The speaker needs a privileged namespace (hostNetwork, NET_RAW): add the pod-security labels it lacks, nothing else. */
    private Result keepNamespace(Namespace desired, Namespace existing, String name) {
        Map<String, String> have = existing.getMetadata().getLabels() == null
                ? Map.of()
                : existing.getMetadata().getLabels();
        Map<String, String> add = new LinkedHashMap<>();
        List<String> conflicts = new java.util.ArrayList<>();
        desired.getMetadata().getLabels().forEach((key, value) -> {
            if (key.startsWith(POD_SECURITY) && !have.containsKey(key)) {
                add.put(key, value);
            } else if (key.startsWith(POD_SECURITY) && key.endsWith("/enforce") && !value.equals(have.get(key))) {
                conflicts.add(
                        key + "=" + have.get(key) + " (the speaker needs " + value + ": its Pods may be refused)");
            }
        });
        if (add.isEmpty()) {
            return new Result(name, Action.kept, String.join("; ", conflicts));
        }
        client.namespaces()
                .withName(existing.getMetadata().getName())
                .edit(ns -> new NamespaceBuilder(ns)
                        .editMetadata()
                        .addToLabels(add)
                        .endMetadata()
                        .build());
        String added = ADDED
                + String.join(
                        ", ",
                        add.entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .toList());
        return new Result(name, Action.kept, conflicts.isEmpty() ? added : added + "; " + String.join("; ", conflicts));
    }

    private static List<String> servedVersions(CustomResourceDefinition crd) {
        return crd.getSpec() == null || crd.getSpec().getVersions() == null
                ? List.of()
                : crd.getSpec().getVersions().stream()
                        .filter(v -> Boolean.TRUE.equals(v.getServed()))
                        .map(v -> v.getName())
                        .toList();
    }

    @SuppressWarnings("unchecked")
    static Resource<? extends HasMetadata> resource(KubernetesClient client, HasMetadata object) {
        if (object instanceof GenericKubernetesResource generic) {
            ResourceDefinitionContext context = Objects.context(generic.getKind());
            return client.genericKubernetesResources(context)
                    .inNamespace(generic.getMetadata().getNamespace())
                    .resource(generic);
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
            case Map<?, ?> w ->
                actual instanceof Map<?, ?> a
                        && w.entrySet().stream()
                                .allMatch(e -> e.getValue() == null || contains(a.get(e.getKey()), e.getValue()));
            case List<?> w ->
                actual instanceof List<?> a
                        && a.size() == w.size()
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
            return object.getKind().toLowerCase() + (group.isEmpty() ? "" : "." + group) + "/"
                    + object.getMetadata().getName();
        }

        static ResourceDefinitionContext context(String kind) {
            return ConfigResources.ofKind(kind)
                    .orElseThrow(() -> new IllegalArgumentException("no resource known for kind " + kind));
        }
    }
}

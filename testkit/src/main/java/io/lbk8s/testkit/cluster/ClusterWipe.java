package io.lbk8s.testkit.cluster;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Empties a shared kube-apiserver between tests: every object a test could have made goes, with its finalizers, and
 * the wipe waits until it is gone, so that the next test can make the same names again. What the server made itself
 * stays (the system namespaces and their objects, the {@code kubernetes} Service, the bootstrap RBAC, the priority
 * levels and flow schemas, the service IP allocator's objects).
 */
final class ClusterWipe {

    private static final Set<String> SYSTEM_NAMESPACES =
            Set.of("default", "kube-system", "kube-public", "kube-node-lease");
    /**
     * What the API server keeps in {@code default} for itself: its Service (its endpoints are a test's to write, see
     * {@link RealApiServer}).
     */
    private static final String SERVER_SERVICE = "kubernetes";
    /** Cluster-scoped kinds a test may create, by group; the rest of the cluster scope is the server's. */
    private static final Map<String, Set<String>> CLUSTER_SCOPED = Map.of(
            "", Set.of("nodes", "persistentvolumes"),
            "rbac.authorization.k8s.io", Set.of("clusterroles", "clusterrolebindings"),
            "admissionregistration.k8s.io",
                    Set.of(
                            "validatingwebhookconfigurations",
                            "mutatingwebhookconfigurations",
                            "validatingadmissionpolicies",
                            "validatingadmissionpolicybindings"),
            "scheduling.k8s.io", Set.of("priorityclasses"),
            "networking.k8s.io", Set.of("ingressclasses"),
            "storage.k8s.io", Set.of("storageclasses"));
    /** The built-in groups whose names do not end in {@code .k8s.io}; any other such group is a CRD's (lbk8s.io too). */
    private static final Set<String> BUILT_IN_GROUPS = Set.of("", "apps", "batch", "policy", "autoscaling");

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private static final int IN_FLIGHT = 32;

    private final KubernetesClient client;
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(IN_FLIGHT);
    private final Map<String, CustomResourceDefinition> keep = new java.util.HashMap<>();

    /** {@code keep}: CRDs that stay where the server holds them as defined there. */
    ClusterWipe(KubernetesClient client, List<CustomResourceDefinition> keep) {
        this.client = client;
        keep.forEach(crd -> this.keep.put(crd.getMetadata().getName(), crd));
    }

    /**
     * Whether the server holds {@code held} as {@code definition} defines it: never changed since created (generation
     * 1), with the same labels and annotations (lbk8s install adds its own).
     */
    static boolean asDefined(HasMetadata held, CustomResourceDefinition definition) {
        var meta = held.getMetadata();
        return Long.valueOf(1).equals(meta.getGeneration())
                && orEmpty(meta.getLabels())
                        .equals(orEmpty(definition.getMetadata().getLabels()))
                && orEmpty(meta.getAnnotations())
                        .equals(orEmpty(definition.getMetadata().getAnnotations()));
    }

    private static Map<String, String> orEmpty(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }

    private boolean kept(HasMetadata crd) {
        CustomResourceDefinition definition = keep.get(crd.getMetadata().getName());
        return definition != null && asDefined(crd, definition);
    }

    void run() {
        List<Kind> kinds = discover();
        // the CRDs last: a custom resource with a finalizer would hold its CRD's deletion
        Predicate<Kind> isCrd = k -> k.plural().equals("customresourcedefinitions");
        inParallel(kinds.stream().filter(isCrd.negate()).toList(), this::deleteAll);
        inParallel(kinds.stream().filter(isCrd).toList(), this::deleteAll);
        inParallel(
                client.namespaces().list().getItems().stream()
                        .map(n -> n.getMetadata().getName())
                        .filter(n -> !SYSTEM_NAMESPACES.contains(n))
                        .toList(),
                this::deleteNamespace);
        awaitGone();
    }

    private void deleteAll(Kind kind) {
        if (kind.context().isNamespaceScoped()) {
            deleteAll(kind, object -> madeByATest(kind, object));
        } else if (kind.plural().equals("customresourcedefinitions")) {
            deleteAll(kind, crd -> !kept(crd));
        } else if (kind.wipedWhenClusterScoped()) {
            deleteAll(kind, this::notBootstrap);
        }
    }

    private static boolean madeByATest(Kind kind, HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        String name = object.getMetadata().getName();
        return !SYSTEM_NAMESPACES.contains(namespace)
                || "default".equals(namespace)
                        && !(kind.group().isEmpty() && kind.plural().equals("services") && name.equals(SERVER_SERVICE));
    }

    private boolean notBootstrap(HasMetadata object) {
        Map<String, String> labels = object.getMetadata().getLabels();
        String name = object.getMetadata().getName();
        return (labels == null || !"rbac-defaults".equals(labels.get("kubernetes.io/bootstrapping")))
                && !name.startsWith("system-")
                && !name.startsWith("system:");
    }

    private void deleteAll(Kind kind, Predicate<HasMetadata> wiped) {
        var resources = client.genericKubernetesResources(kind.context());
        List<GenericKubernetesResource> items;
        try {
            items = limited(() -> (kind.context().isNamespaceScoped() ? resources.inAnyNamespace() : resources)
                    .list()
                    .getItems());
        } catch (KubernetesClientException e) {
            return; // a kind being removed with its CRD, or not listable after all
        }
        inParallel(
                items.stream().filter(wiped).toList(),
                item -> limited(() -> {
                    delete(resources, item);
                    return null;
                }));
    }

    /**
     * At most {@link #IN_FLIGHT} requests at once: the client's one HTTP/2 connection takes no more streams than the
     * server allows (a test's hundreds of Events to delete were refused "too many concurrent streams").
     */
    private <T> T limited(java.util.function.Supplier<T> request) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while emptying the API server", e);
        }
        try {
            return request.get();
        } finally {
            inFlight.release();
        }
    }

    private static void delete(
            MixedOperation<
                            GenericKubernetesResource,
                            GenericKubernetesResourceList,
                            Resource<GenericKubernetesResource>>
                    resources,
            GenericKubernetesResource item) {
        String name = item.getMetadata().getName();
        String namespace = item.getMetadata().getNamespace();
        var one = namespace == null
                ? resources.withName(name)
                : resources.inNamespace(namespace).withName(name);
        try {
            List<String> finalizers = item.getMetadata().getFinalizers();
            if (finalizers != null && !finalizers.isEmpty()) {
                one.edit(r -> {
                    r.getMetadata().setFinalizers(List.of());
                    return r;
                });
            }
            one.withGracePeriod(0).delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 409) {
                throw e;
            }
        }
    }

    /** Deletes an emptied namespace and does the namespace controller's last step at once: it has nothing left. */
    private void deleteNamespace(String name) {
        try {
            client.namespaces().withName(name).withGracePeriod(0).delete();
            Namespace terminating = client.namespaces().withName(name).get();
            if (terminating != null) {
                terminating.getSpec().setFinalizers(List.of());
                client.raw(client.getMasterUrl() + "api/v1/namespaces/" + name + "/finalize", "PUT", terminating);
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 409) {
                throw e;
            }
        }
    }

    private void awaitGone() {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<String> left = new ArrayList<>();
            client.namespaces().list().getItems().stream()
                    .map(n -> n.getMetadata().getName())
                    .filter(n -> !SYSTEM_NAMESPACES.contains(n))
                    .forEach(n -> left.add("namespace " + n));
            client.apiextensions().v1().customResourceDefinitions().list().getItems().stream()
                    .filter(c -> !kept(c))
                    .map(c -> "crd " + c.getMetadata().getName())
                    .forEach(left::add);
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("still there " + PATIENCE + " after the wipe: " + left);
            }
            ControlPlane.sleep(20);
        }
    }

    /** Every kind that can be listed and deleted, once per resource (in its group's preferred version if served). */
    private List<Kind> discover() {
        List<Kind> kinds = Collections.synchronizedList(new ArrayList<>());
        addKinds(kinds, "", "v1");
        inParallel(client.getApiGroups().getGroups(), group -> {
            // a group's preferred version need not serve all its kinds (metallb.io: v1beta2 has only BGPPeers)
            List<Kind> ofGroup = new ArrayList<>();
            addKinds(ofGroup, group.getName(), group.getPreferredVersion().getVersion());
            for (var version : group.getVersions()) {
                addKinds(ofGroup, group.getName(), version.getVersion());
            }
            kinds.addAll(ofGroup);
        });
        return List.copyOf(kinds);
    }

    private void addKinds(List<Kind> kinds, String group, String version) {
        String groupVersion = group.isEmpty() ? version : group + "/" + version;
        var resources = client.getApiResources(groupVersion);
        if (resources == null) {
            return; // a CRD's version going with it
        }
        for (APIResource resource : resources.getResources()) {
            List<String> verbs = resource.getVerbs();
            String plural = resource.getName();
            if (plural.contains("/")
                    || !verbs.contains("list")
                    || !verbs.contains("delete")
                    || plural.equals("namespaces")
                    || kinds.stream().anyMatch(k -> k.plural().equals(plural))) {
                continue;
            }
            kinds.add(new Kind(
                    group,
                    plural,
                    new ResourceDefinitionContext.Builder()
                            .withGroup(group)
                            .withVersion(version)
                            .withPlural(plural)
                            .withKind(resource.getKind())
                            .withNamespaced(resource.getNamespaced())
                            .build()));
        }
    }

    /** Each in a virtual thread of its own: the server serves them together. */
    private static <T> void inParallel(List<T> items, Consumer<T> action) {
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> submitted = new ArrayList<>();
            for (T item : items) {
                submitted.add(threads.submit(() -> action.accept(item)));
            }
            for (Future<?> future : submitted) {
                future.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while emptying the API server", e);
        }
    }

    private record Kind(String group, String plural, ResourceDefinitionContext context) {
        boolean wipedWhenClusterScoped() {
            boolean custom = !group.endsWith(".k8s.io") && !BUILT_IN_GROUPS.contains(group);
            return custom || CLUSTER_SCOPED.getOrDefault(group, Set.of()).contains(plural);
        }
    }
}

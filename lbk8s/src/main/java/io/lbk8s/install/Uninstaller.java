package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.CustomResources;
import io.lbk8s.kube.IpAddressClaims;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code lbk8s uninstall}: deletes what install made (objects labelled {@code app.kubernetes.io/managed-by:
 * lbk8s-install}), and the controllers' IPAddressClaims. The user's IPAddressPools and L2Advertisements survive unless
 * purging: so do their CRDs (deleting a CRD deletes every object of its kind) and the namespace holding them. Even
 * when purging, a CRD or namespace install did not make (MetalLB's, the user's) stays, and so do the user's pools
 * under them.
 */
public final class Uninstaller {

    public enum Action {
        deleted,
        kept,
        absent
    }

    public record Result(String object, Action action, String why) {
        @Override
        public String toString() {
            return object + " " + action + (why.isEmpty() ? "" : " (" + why + ")");
        }
    }

    private final KubernetesClient client;
    /** Deleted, and gone only once emptied: the namespace after its objects, a CRD after its custom resources. */
    private final List<HasMetadata> terminating = new ArrayList<>();

    public Uninstaller(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Waits until the namespace and the CRDs it deleted are gone, as {@code kubectl delete} waits: until then an
     * install into the same namespace is refused ("being terminated"). False when {@code timeout} came first.
     */
    public boolean awaitGone(Duration timeout, Consumer<String> say) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<HasMetadata> left = new ArrayList<>(terminating);
        if (!left.isEmpty()) {
            say.accept("waiting for " + left.size() + " deleted object(s) to go (a namespace goes once emptied)");
        }
        while (true) {
            left.removeIf(object -> Applier.resource(client, object).get() == null);
            if (left.isEmpty()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                say.accept("still terminating after " + timeout.toSeconds() + " s: "
                        + String.join(
                                ", ",
                                left.stream().map(Applier.Objects::displayName).toList()));
                return false;
            }
            Thread.sleep(200);
        }
    }

    public List<Result> uninstall(String namespace, boolean purge, Consumer<String> say) {
        List<HasMetadata> installed = new ArrayList<>(Manifests.render(
                InstallValues.defaults().withNamespace(namespace).withAddresses(List.of())));
        // the speakers' key Secret, which install creates right after the namespace (render leaves it out): deleted
        // after the speakers, whatever key it holds
        installed.add(1, Manifests.peerSecret(namespace, ""));
        List<Result> results = new ArrayList<>();
        // pools and advertisements install made, whatever their names; with --purge also the user's, but only those
        // that go anyway with install's namespace or CRD: never MetalLB's in a namespace and under CRDs install kept
        boolean namespaceOurs = ours(client.namespaces().withName(namespace).get());
        for (ResourceDefinitionContext context : ConfigResources.KINDS) {
            boolean goesWithOurs = namespaceOurs
                    || ours(client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(context.getPlural() + "." + context.getGroup())
                            .get());
            for (GenericKubernetesResource object : listOrEmpty(context, namespace)) {
                boolean ours = Applier.Objects.managedByInstall(object);
                String display = Applier.Objects.displayName(object);
                if (ours || (purge && goesWithOurs)) {
                    client.genericKubernetesResources(context)
                            .inNamespace(namespace)
                            .withName(object.getMetadata().getName())
                            .delete();
                    results.add(report(say, new Result(display, Action.deleted, ours ? "" : "--purge")));
                } else if (purge) {
                    results.add(report(
                            say,
                            new Result(
                                    display,
                                    Action.kept,
                                    "not made by lbk8s install, and neither the namespace " + "nor the "
                                            + context.getKind() + " CRD is lbk8s install's")));
                }
            }
        }
        long userObjects = userConfigAnywhere();
        for (HasMetadata object : installed.reversed()) {
            switch (object) {
                case Namespace ns -> results.add(report(say, namespace(ns, purge)));
                // the claims are the controllers' own records, never the user's: they go whoever made their CRD,
                // after the controllers (which would claim again) and before the CRD (which takes them along)
                case CustomResourceDefinition crd
                when crd.getMetadata().getName().equals(IpAddressClaims.CRD) -> {
                    results.add(report(say, deleteClaims()));
                    results.add(report(say, delete(crd)));
                }
                case CustomResourceDefinition crd
                when !purge && userObjects > 0 ->
                    results.add(
                            report(
                                    say,
                                    new Result(
                                            Applier.Objects.displayName(crd),
                                            Action.kept,
                                            userObjects
                                                    + " IPAddressPool/L2Advertisement object(s) not made by install exist; --purge deletes them too")));
                default -> results.add(report(say, delete(object)));
            }
        }
        return results.stream().filter(r -> r.action() != Action.absent).toList();
    }

    private static boolean ours(HasMetadata object) {
        return object != null && Applier.Objects.managedByInstall(object);
    }

    private Result namespace(Namespace ns, boolean purge) {
        String name = ns.getMetadata().getName();
        String display = "namespace/" + name;
        Namespace current = client.namespaces().withName(name).get();
        if (current == null) {
            return new Result(display, Action.absent, "");
        }
        if (!Applier.Objects.managedByInstall(current)) {
            return new Result(display, Action.kept, "not made by lbk8s install");
        }
        long left = ConfigResources.KINDS.stream()
                        .mapToLong(kind -> listOrEmpty(kind, name).size())
                        .sum()
                + (client.configMaps()
                                        .inNamespace(name)
                                        .withName(ConfigResources.CONFIG_MAP_NAME)
                                        .get()
                                == null
                        ? 0
                        : 1);
        if (left > 0 && !purge) {
            return new Result(
                    display,
                    Action.kept,
                    "it holds " + left + " configuration object(s) of yours; --purge deletes them too");
        }
        client.namespaces().withName(name).delete();
        terminating.add(current);
        return new Result(display, Action.deleted, "");
    }

    private Result delete(HasMetadata object) {
        String display = Applier.Objects.displayName(object);
        var resource = Applier.resource(client, object);
        HasMetadata current = resource.get();
        if (current == null) {
            return new Result(display, Action.absent, "");
        }
        if (!Applier.Objects.managedByInstall(current)) {
            return new Result(display, Action.kept, "not made by lbk8s install");
        }
        resource.delete();
        if (current instanceof CustomResourceDefinition) {
            terminating.add(current);
        }
        return new Result(display, Action.deleted, "");
    }

    /** Every IPAddressClaim, in one request: a cluster may hold thousands. */
    private Result deleteClaims() {
        String display = IpAddressClaims.CRD;
        int claims;
        try {
            claims = client.genericKubernetesResources(IpAddressClaims.CONTEXT)
                    .list()
                    .getItems()
                    .size();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return new Result(display, Action.absent, ""); // an install from before the claims
            }
            throw e;
        }
        if (claims == 0) {
            return new Result(display, Action.absent, "");
        }
        client.genericKubernetesResources(IpAddressClaims.CONTEXT).delete();
        return new Result(claims + " " + display, Action.deleted, "");
    }

    /** The user's pools and advertisements in any namespace: what deleting the CRDs would destroy. */
    private long userConfigAnywhere() {
        long count = 0;
        for (ResourceDefinitionContext context : ConfigResources.KINDS) {
            try {
                count += client.genericKubernetesResources(context).inAnyNamespace().list().getItems().stream()
                        .filter(o -> !Applier.Objects.managedByInstall(o))
                        .count();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        }
        return count;
    }

    private List<GenericKubernetesResource> listOrEmpty(ResourceDefinitionContext context, String namespace) {
        return CustomResources.listIfInstalled(client, context, namespace).orElse(List.of());
    }

    private static Result report(Consumer<String> say, Result result) {
        if (result.action() != Action.absent) {
            say.accept(result.toString());
        }
        return result;
    }
}

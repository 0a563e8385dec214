package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the controller's and the speaker's shells share about informers. */
public final class Informers {
    private static final Logger log = LoggerFactory.getLogger(Informers.class);

    private Informers() {}

    /** A handler that reacts the same way to an add, an update (with the new object) and a delete. */
    public static <T> ResourceEventHandler<T> onAnyChange(Consumer<T> action) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                action.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                action.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                action.accept(obj);
            }
        };
    }

    /**
     * Watches custom resources as generic objects (a malformed one reaches the parser as data instead of stopping
     * a typed informer); without their CRD, says so and carries on without them.
     */
    public static Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(KubernetesClient client,
            ResourceDefinitionContext context, String namespace, ResourceEventHandler<GenericKubernetesResource> handler) {
        try {
            return Optional.of(client.genericKubernetesResources(context).inNamespace(namespace).inform(handler));
        } catch (KubernetesClientException e) {
            log.warn("cannot watch {}.{} (is the CRD installed?): {}; continuing without them",
                    context.getPlural(), context.getGroup(), e.getMessage());
            return Optional.empty();
        }
    }
}

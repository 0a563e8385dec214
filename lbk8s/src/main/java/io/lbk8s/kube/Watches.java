package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A component's informers, each of which recovers by itself: once it has listed, any failure of its watch (a stream
 * cut in the middle of an event, an object it cannot decode, the API server gone) makes it list and watch again with
 * fabric8's backoff, where a stock informer stops for good after some of them. {@link #down} names those not watching
 * now, for the component's /readyz: what it decides meanwhile may rest on a stale view.
 */
public final class Watches implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watches.class);

    private record Watched(String what, SharedIndexInformer<?> informer) {}

    private final List<Watched> watched = new CopyOnWriteArrayList<>();

    /**
     * Lists {@code source} (failing as a stock informer does when that first list fails), then watches it for good;
     * {@code what} names it in logs and readiness.
     */
    public <T> SharedIndexInformer<T> inform(String what, Informable<T> source, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = resilient(what, source, handler);
        watched.add(new Watched(what, informer));
        return informer;
    }

    /** As {@link #inform}, for one object or set of objects that is not part of readiness (e.g. a Secret). */
    public static <T> SharedIndexInformer<T> resilient(String what, Informable<T> source, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = source.runnableInformer(0);
        informer.exceptionHandler((started, failure) -> {
            if (started) {
                log.warn("the watch of {} failed ({}); listing and watching again", what, failure.getMessage());
            }
            return started;
        });
        informer.addEventHandler(handler);
        informer.run();
        return informer;
    }

    /**
     * Watches custom resources as generic objects (a malformed one reaches the parser as data instead of stopping
     * a typed informer); without their CRD, says so and carries on without them.
     */
    public Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(KubernetesClient client,
            ResourceDefinitionContext context, String namespace, ResourceEventHandler<GenericKubernetesResource> handler) {
        try {
            return Optional.of(inform(context.getPlural() + "." + context.getGroup(),
                    client.genericKubernetesResources(context).inNamespace(namespace), handler));
        } catch (KubernetesClientException e) {
            log.warn("cannot watch {}.{} (is the CRD installed?): {}; continuing without them",
                    context.getPlural(), context.getGroup(), e.getMessage());
            return Optional.empty();
        }
    }

    /** The watches that are not running now (they are listing and watching again), or empty when all run. */
    public Optional<String> down() {
        List<String> down = watched.stream().filter(w -> !w.informer().isWatching()).map(Watched::what).toList();
        return down.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", down));
    }

    /**
     * Publishes {@code lbk8s_api_watches_down}: how many of these watches are not watching now (the API server
     * unreachable, or refusing), so that an outage, and the recovery after it, shows on a dashboard.
     */
    public void measure(MeterRegistry registry) {
        Gauge.builder("lbk8s.api.watches.down", watched, all -> all.stream().filter(w -> !w.informer().isWatching()).count())
                .description("Watches of the API server that are not watching now (listing and watching again)")
                .register(registry);
    }

    @Override
    public void close() {
        watched.forEach(w -> w.informer().close());
    }
}

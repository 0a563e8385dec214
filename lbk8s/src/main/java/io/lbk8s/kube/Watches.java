package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A component's informers, each of which recovers by itself: once it has listed, any failure of its watch (a stream
 * cut in the middle of an event, an object it cannot decode, the API server gone) makes it list and watch again with
 * fabric8's backoff, where a stock informer stops for good after some of them. {@link #down} names those not watching
 * now, for the component's /readyz: what it decides meanwhile may rest on a stale view. With {@link #checkApi}, a watch
 * whose connection went silent (a partition drops packets: nothing fails, nothing arrives) counts as down too.
 */
public final class Watches implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watches.class);

    private record Watched(String what, SharedIndexInformer<?> informer) {}

    /**
     * Objects per page when an informer lists (client-go's page size): the API server sends a list of thousands in
     * pages, each decoded and put into the informer's cache before the next is asked for, where one response was
     * decoded whole first (a speaker with a 64 MiB heap ran out of it listing 10,000 Services that way).
     */
    static final long LIST_PAGE = 500;

    private final List<Watched> watched = new CopyOnWriteArrayList<>();
    private ApiContact contact = ApiContact.answeredAt(System.nanoTime()); // guarded by this
    private volatile Thread checker;

    /**
     * Lists {@code source} (failing as a stock informer does when that first list fails), then watches it for good;
     * {@code what} names it in logs and readiness.
     */
    public <T> SharedIndexInformer<T> inform(
            String what, Informable<T> source, ResourceEventHandler<? super T> handler) {
        return inform(what, source, Optional.empty(), handler);
    }

    /**
     * As {@link #inform(String, Informable, ResourceEventHandler)}, its cache kept in {@code store} (e.g. a
     * {@link io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore} that keeps only the fields read).
     */
    public <T> SharedIndexInformer<T> inform(
            String what, Informable<T> source, ItemStore<T> store, ResourceEventHandler<? super T> handler) {
        return inform(what, source, Optional.of(store), handler);
    }

    private <T> SharedIndexInformer<T> inform(
            String what, Informable<T> source, Optional<ItemStore<T>> store, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = resilient(what, source, store, handler);
        informer.addEventHandler(Informers.onAnyChange(any -> update(c -> c.answered(System.nanoTime()))));
        watched.add(new Watched(what, informer));
        return informer;
    }

    /** As {@link #inform}, for one object or set of objects that is not part of readiness (e.g. a Secret). */
    public static <T> SharedIndexInformer<T> resilient(
            String what, Informable<T> source, ResourceEventHandler<? super T> handler) {
        return resilient(what, source, Optional.empty(), handler);
    }

    private static <T> SharedIndexInformer<T> resilient(
            String what, Informable<T> source, Optional<ItemStore<T>> store, ResourceEventHandler<? super T> handler) {
        SharedIndexInformer<T> informer = source.withLimit(LIST_PAGE).runnableInformer(0);
        store.ifPresent(informer::itemStore);
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
    public Optional<SharedIndexInformer<GenericKubernetesResource>> customResources(
            KubernetesClient client,
            ResourceDefinitionContext context,
            String namespace,
            ResourceEventHandler<GenericKubernetesResource> handler) {
        try {
            return Optional.of(inform(
                    context.getPlural() + "." + context.getGroup(),
                    client.genericKubernetesResources(context).inNamespace(namespace),
                    handler));
        } catch (KubernetesClientException e) {
            log.warn(
                    "cannot watch {}.{} (is the CRD installed?): {}; continuing without them",
                    context.getPlural(),
                    context.getGroup(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    /** How long the watches may bring nothing before the API server is asked, and how long it has to answer. */
    private static final Duration API_QUIET = Duration.ofSeconds(5);

    private static final Duration API_PATIENCE = Duration.ofSeconds(3);

    /** {@link #checkApi(KubernetesClient, Duration, Duration)} with 5 s of quiet and 3 s of patience. */
    public void checkApi(KubernetesClient client) {
        checkApi(client, API_QUIET, API_PATIENCE);
    }

    /**
     * From now on, once the watches have brought nothing for {@code quiet}, asks the API server for its version
     * (waiting at most {@code patience}); unanswered, every watch counts as down until the API server answers again.
     */
    public void checkApi(KubernetesClient client, Duration quiet, Duration patience) {
        checker = Thread.ofVirtual().name("api-check").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(quiet);
                    if (contact().askDue(System.nanoTime(), quiet)) {
                        ask(client, patience);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private void ask(KubernetesClient client, Duration patience) throws InterruptedException {
        long sentAt = System.nanoTime();
        String base = client.getMasterUrl().toString();
        HttpRequest request = client.getHttpClient()
                .newHttpRequestBuilder()
                .uri(base + (base.endsWith("/") ? "" : "/") + "version")
                .timeout(patience.toMillis(), TimeUnit.MILLISECONDS)
                .build();
        CompletableFuture<?> answer = client.getHttpClient().sendAsync(request, String.class);
        try {
            answer.get(patience.toMillis(), TimeUnit.MILLISECONDS);
            update(c -> c.answered(System.nanoTime())); // any status will do: the API server answered
        } catch (TimeoutException e) {
            update(c -> c.unanswered(sentAt, "GET /version unanswered after " + patience.toMillis() + " ms"));
        } catch (ExecutionException e) {
            update(c -> c.unanswered(sentAt, "GET /version: " + e.getCause().getMessage()));
        } finally {
            answer.cancel(true);
        }
    }

    private synchronized ApiContact contact() {
        return contact;
    }

    private synchronized void update(UnaryOperator<ApiContact> change) {
        ApiContact before = contact;
        contact = change.apply(before);
        long now = System.nanoTime();
        if (before.reachable() && !contact.reachable()) {
            log.warn(
                    "{}; every watch counts as down, and what this component does rests on what it last saw",
                    contact.describe(now).orElseThrow());
        } else if (!before.reachable() && contact.reachable()) {
            log.info(
                    "the API server answers again, after {} s without an answer",
                    before.silentFor(now).toSeconds());
        }
    }

    /**
     * The watches that are not watching now, or empty when all are: those listing and watching again, and all of
     * them while the API server does not answer.
     */
    public Optional<String> down() {
        List<String> down =
                watched.stream().filter(this::isDown).map(Watched::what).toList();
        return down.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", down));
    }

    /** Why {@link #down} names them: the API server's silence, or else they are listing and watching again. */
    public String whyDown() {
        return contact().describe(System.nanoTime()).orElse("listing and watching again");
    }

    private boolean isDown(Watched w) {
        return !w.informer().isWatching() || !contact().reachable();
    }

    /**
     * Publishes {@code lbk8s_api_watches_down}: how many of these watches are not watching now (the API server
     * unreachable, or refusing), so that an outage, and the recovery after it, shows on a dashboard.
     */
    public void measure(MeterRegistry registry) {
        Gauge.builder(
                        "lbk8s.api.watches.down",
                        watched,
                        all -> all.stream().filter(this::isDown).count())
                .description(
                        "Watches of the API server that are not watching now (listing and watching again, or the API server not answering)")
                .register(registry);
    }

    @Override
    public void close() {
        Thread check = checker;
        if (check != null) {
            check.interrupt();
        }
        watched.forEach(w -> w.informer().close());
    }
}

package io.lbk8s.election;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.kube.ApiErrors;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a coordination.k8s.io/v1 Lease: every retry period this candidate reads the Lease and does what
 * {@link Elector} decides. Callbacks run on the election's own thread, one at a time, in order.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    /** Told when this candidate starts and stops leading; {@code stoppedLeading} must stop all work that needs the lead. */
    public interface Listener {
        void startedLeading();

        void stoppedLeading();
    }

    private final LeaseApi lease;
    private final String identity;
    private final ElectionSettings settings;
    private final Listener listener;
    private final ElectionMetrics metrics;
    private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    private final Thread loop;

    // Owned by the loop thread; by close() once the loop has ended.
    private Optional<Lease> current = Optional.empty(); // the object last read or written, for its resourceVersion
    private Optional<Observed> observed = Optional.empty();
    private Optional<Long> lastRenewedNanos = Optional.empty(); // present while leading
    private Optional<String> lastHolder = Optional.empty();
    private boolean failing;

    private volatile boolean leading;
    private volatile Optional<String> leader = Optional.empty();

    public LeaderElection(
            KubernetesClient client,
            String namespace,
            String leaseName,
            String identity,
            ElectionSettings settings,
            Listener listener,
            MeterRegistry registry,
            Clock wallClock) {
        this.lease = new LeaseApi(client, namespace, leaseName, wallClock, settings.leaseDuration());
        this.identity = identity;
        this.settings = settings;
        this.listener = listener;
        this.metrics = new ElectionMetrics(registry);
        this.loop = Thread.ofVirtual().name("leader-election").unstarted(this::run);
    }

    public LeaderElection start() {
        log.info(
                "{} runs for leader on the Lease {} (lease {}ms, renew deadline {}ms, retry every {}ms)",
                identity,
                lease.describe(),
                settings.leaseDuration().toMillis(),
                settings.renewDeadline().toMillis(),
                settings.retryPeriod().toMillis());
        loop.start();
        return this;
    }

    public String identity() {
        return identity;
    }

    public boolean leading() {
        return leading;
    }

    /** Who holds the Lease, as last read; empty before the first read and while nobody holds it. */
    public Optional<String> leader() {
        return leader;
    }

    private void run() {
        long period = settings.retryPeriod().toNanos();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                long started = System.nanoTime();
                if (tryOnce() == Outcome.CONFLICT) {
                    tryOnce(); // someone else wrote first: read again at once, rather than a period later
                }
                pauseUntil(started + period);
            }
        } catch (InterruptedException e) {
            // close() ends the loop
        }
    }

    /** Sleeps until the next read, waking at the renew deadline if it comes first, to stop leading on time. */
    private void pauseUntil(long nextReadNanos) throws InterruptedException {
        for (int wakes = 0; wakes < 3; wakes++) { // the deadline, then the next read; one spare for rounding
            long wakeAt = lastRenewedNanos
                    .map(r -> Math.min(r + settings.renewDeadline().toNanos(), nextReadNanos))
                    .orElse(nextReadNanos);
            long nanos = wakeAt - System.nanoTime();
            if (nanos > 0) {
                Thread.sleep(Duration.ofNanos(nanos));
            }
            stopIfDue();
            if (System.nanoTime() - nextReadNanos >= 0) {
                return;
            }
        }
    }

    private enum Outcome {
        DONE,
        CONFLICT
    }

    private Outcome tryOnce() throws InterruptedException {
        Optional<Lease> read;
        try {
            read = call(lease::read);
        } catch (CallFailed e) {
            failed("read", e);
            return Outcome.DONE;
        }
        see(read, System.nanoTime());
        Decision decision = Elector.decide(settings, identity, observed, lastRenewedNanos, System.nanoTime());
        return switch (decision) {
            case Decision.StopLeading(String why) -> {
                stopLeading(why);
                yield Outcome.DONE;
            }
            case Decision.Follow _ -> Outcome.DONE;
            case Decision.Acquire(String why) -> write(true, why);
            case Decision.Renew _ -> write(false, "the Lease already named " + identity);
        };
    }

    private Outcome write(boolean newTerm, String why) throws InterruptedException {
        // The term is counted from before the request: the followers count theirs from when they see it, later.
        long sent = System.nanoTime();
        Lease written;
        try {
            written = call(() -> lease.hold(current, identity, newTerm, settings.leaseDurationSeconds()));
        } catch (CallFailed e) {
            if (e.conflict()) {
                log.debug("{}: another candidate wrote the Lease first; reading it again", identity);
                return Outcome.CONFLICT;
            }
            failed(newTerm ? "take" : "renew", e);
            return Outcome.DONE;
        }
        long answered = System.nanoTime();
        see(Optional.of(written), answered);
        if (!leading && answered - sent >= settings.renewDeadline().toNanos()) {
            // Leading on a term already past its renew deadline would only mean stopping at once; renew first.
            log.info(
                    "{} took the Lease, but its write took {}ms: it leads once a renewal answers in time",
                    identity,
                    Duration.ofNanos(answered - sent).toMillis());
            return Outcome.DONE;
        }
        lastRenewedNanos = Optional.of(sent);
        if (!leading) {
            startLeading(why);
        }
        return Outcome.DONE;
    }

    private void see(Optional<Lease> read, long nowNanos) {
        if (failing) {
            failing = false;
            log.info("{} reaches the Lease {} again", identity, lease.describe());
        }
        current = read;
        Optional<LeaseRecord> record = read.map(LeaseApi::record);
        boolean readBefore = observed.isPresent();
        observed = Optional.of(
                observed.map(o -> o.next(record, nowNanos)).orElseGet(() -> Observed.first(record, nowNanos)));
        Optional<String> holder = observed.get().holder();
        if (!holder.equals(leader)) {
            log.info(
                    "{} leads the controllers (Lease {}, as {} sees it)",
                    holder.orElse("nobody"),
                    lease.describe(),
                    identity);
        }
        if (holder.isPresent() && !holder.equals(lastHolder)) {
            if (readBefore) {
                metrics.newHolder();
            }
            lastHolder = holder;
        }
        leader = holder;
    }

    private void failed(String what, CallFailed e) throws InterruptedException {
        if (!failing) {
            failing = true;
            log.warn(
                    "{} cannot {} the Lease {}: {}{}",
                    identity,
                    what,
                    lease.describe(),
                    e.getMessage(),
                    leading
                            ? "; it leads until " + settings.renewDeadline().toMillis() + "ms after its last renewal"
                            : "");
        } else {
            log.debug("{} cannot {} the Lease {}: {}", identity, what, lease.describe(), e.getMessage());
        }
        stopIfDue();
    }

    /** Stops leading when the decision says so, even while a request hangs. */
    private void stopIfDue() {
        if (Elector.decide(settings, identity, observed, lastRenewedNanos, System.nanoTime())
                instanceof Decision.StopLeading(String why)) {
            stopLeading(why);
        }
    }

    private void startLeading(String why) {
        changeLeading(true, why, "starts leading", listener::startedLeading, "starting to lead failed");
    }

    private void stopLeading(String why) {
        if (lastRenewedNanos.isEmpty() && !leading) {
            return;
        }
        lastRenewedNanos = Optional.empty();
        changeLeading(false, why, "stops leading", listener::stoppedLeading, "stopping to lead failed");
    }

    /** Records the change, then tells the listener; a listener that throws is logged, and the election goes on. */
    private void changeLeading(boolean now, String why, String change, Runnable tellListener, String failure) {
        leading = now;
        metrics.leading(now);
        log.info("{} {}: {}", identity, change, why);
        try {
            tellListener.run();
        } catch (RuntimeException e) {
            log.error("{}: {}", identity, failure, e);
        }
    }

    private static final class CallFailed extends Exception {
        CallFailed(String message, Throwable cause) {
            super(message, cause, false, false);
        }

        boolean conflict() {
            return getCause() instanceof KubernetesClientException k && k.getCode() == 409;
        }
    }

    /**
     * Runs one request on its own thread and waits for it; while leading, it wakes at the renew deadline to stop leading
     * on time even when the request hangs. A request that has not answered in a lease duration has failed.
     */
    private <T> T call(Callable<T> request) throws CallFailed, InterruptedException {
        Future<T> answer = calls.submit(request);
        long giveUp = System.nanoTime() + settings.leaseDuration().toNanos();
        try {
            while (true) {
                long deadline = lastRenewedNanos
                        .map(r -> r + settings.renewDeadline().toNanos())
                        .orElse(giveUp);
                long wait = Math.max(1_000_000L, Math.min(deadline, giveUp) - System.nanoTime());
                try {
                    return answer.get(wait, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    stopIfDue();
                    if (System.nanoTime() - giveUp >= 0) {
                        throw new CallFailed(
                                "no answer in " + settings.leaseDuration().toMillis() + "ms", e);
                    }
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    throw new CallFailed(
                            cause instanceof KubernetesClientException k
                                    ? ApiErrors.oneLine(k)
                                    : cause.getClass().getSimpleName() + ": " + cause.getMessage(),
                            cause);
                }
            }
        } finally {
            answer.cancel(true);
        }
    }

    /**
     * Stops the election. A leader stops leading first (its callback returns before the Lease is released), then
     * clears the Lease's holder, so that a standby takes over at its next read instead of after the lease duration.
     */
    @Override
    public void close() {
        loop.interrupt();
        try {
            if (loop.isAlive()
                    && !loop.join(settings.leaseDuration().plusSeconds(5))) { // never started: nothing to wait for
                log.warn("{}: the election loop did not end in time", identity);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean wasLeading = leading;
        stopLeading("closing");
        if (wasLeading) {
            release();
        }
        calls.shutdownNow();
    }

    private void release() {
        try {
            Optional<Lease> now = call(lease::read);
            if (now.isPresent()
                    && now.map(LeaseApi::record).flatMap(LeaseRecord::heldBy).equals(Optional.of(identity))) {
                call(() -> lease.release(now.get()));
                log.info("{} released the Lease {}: a standby takes it at its next read", identity, lease.describe());
            }
        } catch (CallFailed e) {
            log.warn(
                    "{} could not release the Lease {} ({}): a standby takes it over once it has not changed for {}ms",
                    identity,
                    lease.describe(),
                    e.getMessage(),
                    settings.leaseDuration().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

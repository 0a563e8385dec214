package io.lbk8s.election;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * The election's Lease (coordination.k8s.io/v1), read and written with optimistic concurrency: every write carries
 * the resourceVersion it was decided on, so when two candidates write at once the API server refuses one (409).
 */
final class LeaseApi {
    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final Clock wallClock;

    /**
     * @param callTimeout the longest a request may take: past it, whatever it would return is stale. Retries are
     *     off for the same reason: the election's own loop retries with fresh reads.
     */
    LeaseApi(KubernetesClient client, String namespace, String name, Clock wallClock, Duration callTimeout) {
        this.client = client.newClient(
                        new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                                .withRequestTimeout((int) callTimeout.toMillis())
                                .withRequestRetryBackoffLimit(0)
                                .build())
                .adapt(KubernetesClient.class);
        this.namespace = namespace;
        this.name = name;
        this.wallClock = wallClock;
    }

    String describe() {
        return namespace + "/" + name;
    }

    Optional<Lease> read() {
        return Optional.ofNullable(
                client.leases().inNamespace(namespace).withName(name).get());
    }

    /**
     * Writes {@code holder} into the Lease as last read ({@code current}; empty: creates it). A new term (taking the
     * Lease from someone else, or from nobody) sets acquireTime and counts a transition; a renewal keeps both.
     */
    Lease hold(Optional<Lease> current, String holder, boolean newTerm, int leaseDurationSeconds) {
        ZonedDateTime now = now();
        if (current.isEmpty()) {
            return client.leases()
                    .inNamespace(namespace)
                    .resource(new LeaseBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .endMetadata()
                            .withNewSpec()
                            .withHolderIdentity(holder)
                            .withAcquireTime(now)
                            .withRenewTime(now)
                            .withLeaseDurationSeconds(leaseDurationSeconds)
                            .withLeaseTransitions(0)
                            .endSpec()
                            .build())
                    .create();
        }
        Lease lease = current.get();
        int transitions = record(lease).leaseTransitions();
        var spec = new LeaseBuilder(lease)
                .editOrNewSpec()
                .withHolderIdentity(holder)
                .withRenewTime(now)
                .withLeaseDurationSeconds(leaseDurationSeconds);
        if (newTerm) {
            spec = spec.withAcquireTime(now).withLeaseTransitions(transitions + 1);
        }
        return client.leases()
                .inNamespace(namespace)
                .resource(spec.endSpec().build())
                .update();
    }

    /** Clears the holder (as client-go's ReleaseOnCancel does), so that a standby takes the Lease at its next read. */
    Lease release(Lease current) {
        ZonedDateTime now = now();
        return client.leases()
                .inNamespace(namespace)
                .resource(new LeaseBuilder(current)
                        .editOrNewSpec()
                        .withHolderIdentity(null)
                        .withAcquireTime(now)
                        .withRenewTime(now)
                        .withLeaseDurationSeconds(1)
                        .endSpec()
                        .build())
                .update();
    }

    private ZonedDateTime now() {
        return ZonedDateTime.now(wallClock).truncatedTo(ChronoUnit.MICROS); // the API's MicroTime precision
    }

    static LeaseRecord record(Lease lease) {
        var spec = Objects.requireNonNullElseGet(lease.getSpec(), LeaseSpec::new); // someone may have made an empty one
        return new LeaseRecord(
                spec.getHolderIdentity(),
                Objects.toString(spec.getAcquireTime(), ""),
                Objects.toString(spec.getRenewTime(), ""),
                Objects.requireNonNullElse(spec.getLeaseDurationSeconds(), 0),
                Objects.requireNonNullElse(spec.getLeaseTransitions(), 0),
                lease.getMetadata().getResourceVersion());
    }
}
